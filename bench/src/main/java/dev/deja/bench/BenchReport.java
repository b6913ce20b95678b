package dev.deja.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The results of a benchmark run: the tree written to {@code bench/results/latest.json} and the table printed
 * from it. Immutable.
 */
public final class BenchReport {
    /** The top-level keys every results file has (a section that did not run says so under its keys). */
    public static final List<String> HEADLINE_KEYS = List.of("recording_overhead_pct", "bytes_per_event",
            "replay_events_per_s", "check_slowdown", "recheck_from_history_speedup", "sim_events_per_s");

    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private final ObjectNode results;

    /** @throws IllegalArgumentException if a headline key or the machine description is missing */
    public BenchReport(ObjectNode results) {
        for (String key : HEADLINE_KEYS) {
            if (!results.has(key)) {
                throw new IllegalArgumentException("benchmark results without \"" + key + "\"");
            }
        }
        if (!results.path("machine").isObject()) {
            throw new IllegalArgumentException("benchmark results without a \"machine\" description");
        }
        this.results = results.deepCopy();
    }

    /** Reads a results file written by {@link #write}. */
    public static BenchReport read(Path file) {
        JsonNode tree;
        try {
            tree = MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read benchmark results from " + file + ": " + e.getMessage(), e);
        }
        if (!(tree instanceof ObjectNode object)) {
            throw new IllegalArgumentException(file + ": benchmark results must be a JSON object");
        }
        try {
            return new BenchReport(object);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /** A copy of the results tree. */
    public ObjectNode json() {
        return results.deepCopy();
    }

    /** Writes the results as indented JSON, creating the parent directory. */
    public void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path temporary = parent.resolve(file.getFileName() + ".tmp");
            Files.writeString(temporary, MAPPER.writeValueAsString(results) + "\n");
            Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write benchmark results to " + file, e);
        }
    }

    /** The results as a text table (Markdown), one figure per row, with the machine they were measured on. */
    public String table() {
        return ResultsTable.render(results);
    }
}
