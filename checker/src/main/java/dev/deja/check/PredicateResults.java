package dev.deja.check;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the latest complete check found per predicate, kept with the stored history so that a re-check can reuse the
 * results of every predicate whose code and inputs did not change.
 *
 * @param eventsChecked how many events that check evaluated
 * @param byPredicate   each predicate's result, by predicate name
 */
public record PredicateResults(long eventsChecked, Map<String, Result> byPredicate) {
    public PredicateResults {
        byPredicate = Collections.unmodifiableMap(new LinkedHashMap<>(byPredicate));
    }

    /**
     * One predicate's result.
     *
     * @param fingerprint what the predicate depends on (its code, what it reaches, the settings), as a digest
     * @param lines       the start lines of the declarations it reaches: error findings show them in tracebacks
     * @param reads       what it read at its last evaluation (see {@link CheckReport#reads()})
     * @param findings    its findings, each with where the check added it to its report
     */
    public record Result(String fingerprint, String lines, List<String> reads, List<Finding> findings) {
        public Result {
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(lines, "lines");
            reads = reads == null ? List.of() : List.copyOf(reads);
            findings = findings == null ? List.of() : List.copyOf(findings);
        }

        /** Whether one of its findings shows a traceback, whose line numbers must still hold for it to be reused. */
        public boolean hasErrors() {
            return findings.stream().anyMatch(f -> f.violation().status() == Violation.Status.ERROR);
        }
    }

    /**
     * One finding and its place in the report: the report lists findings by position, and those of one position in
     * the order the check added them, which is by the event at which it added them ({@code addedAt},
     * {@link Long#MAX_VALUE} for a span still open at the end), then by predicate, then by their order among that
     * predicate's findings at that event ({@code ordinal}).
     */
    public record Finding(Violation violation, long addedAt, int ordinal) {
        public Finding {
            Objects.requireNonNull(violation, "violation");
        }
    }
}
