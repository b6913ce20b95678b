package dev.deja.check;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of checking one trace with one script: what {@code deja check --json} writes and what the
 * viewer's violation stripe reads.
 *
 * @param trace          the trace directory as given
 * @param script         the script file as given
 * @param eventsChecked  how many events were evaluated
 * @param fromHistory    whether the state came from stored history instead of a replay
 * @param violations     every finding, in position order, each classified by the thresholds
 * @param thresholds     the {@code --threshold} values the findings were classified by ({@code NAME=VALUE})
 * @param counted        how many findings make the check fail ({@link Violation#counted()}): what the summary
 *                       and the exit code count (computed from {@code violations})
 * @param screenedOut    how many findings that would count a threshold screened out (computed)
 * @param reads          what each predicate read at its last evaluation (tables, derived values, built-ins)
 */
public record CheckReport(String trace, String script, long eventsChecked, boolean fromHistory,
                          List<Violation> violations, List<String> thresholds, long counted, long screenedOut,
                          Map<String, List<String>> reads) {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new Jdk8Module())
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // Row and aux values are normalized to Long for integers; read them back the same way.
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .build();

    public CheckReport {
        Objects.requireNonNull(trace, "trace");
        Objects.requireNonNull(script, "script");
        violations = List.copyOf(violations);
        thresholds = thresholds == null ? List.of() : List.copyOf(thresholds);
        reads = reads == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(reads));
        counted = violations.stream().filter(Violation::counted).count();
        // Only those the threshold kept from counting: a closed span does not count anyway.
        screenedOut = violations.stream().filter(v -> v.belowThreshold() && v.withBelowThreshold(false).counted()).count();
    }

    /** A report of findings not classified by any threshold. */
    public CheckReport(String trace, String script, long eventsChecked, boolean fromHistory, List<Violation> violations) {
        this(trace, script, eventsChecked, fromHistory, violations, List.of(), 0, 0, Map.of());
    }

    /** This report with its findings classified by {@code values} (replacing any earlier classification). */
    public CheckReport classified(List<Threshold> values) {
        return new CheckReport(trace, script, eventsChecked, fromHistory, Threshold.classify(values, violations),
                values.stream().map(Threshold::toString).toList(), 0, 0, reads);
    }

    /** Writes this report as JSON to {@code file}. */
    public void write(Path file) {
        try {
            MAPPER.writeValue(file.toFile(), this);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the check report " + file + ": " + e.getMessage(), e);
        }
    }

    /** Reads a report written by {@link #write}; a file that is not one is refused naming the file. */
    public static CheckReport read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no check report at " + file);
        }
        try {
            return MAPPER.readValue(file.toFile(), CheckReport.class);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " is not a Deja check report (as written by deja check --json): "
                    + e.getMessage(), e);
        }
    }
}
