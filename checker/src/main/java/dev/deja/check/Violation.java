package dev.deja.check;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One finding of a check: a safety predicate false at an event, a liveness span, or a predicate that failed
 * to evaluate.
 *
 * @param predicate   the predicate's name (the Python function's name)
 * @param kind        whether it was declared {@code always} or {@code eventually}
 * @param status      what happened
 * @param event       the event at which it was found (for a span, the event that opened it)
 * @param endPosition for a span, the position of the event that closed it; empty if still open at the end of
 *                    the trace, and for everything that is not a span
 * @param aux         the predicate's auxiliary values at {@code event}, by name in declaration order (normalized
 *                    like row values; a value may be null)
 * @param auxAtEnd    for a span, the auxiliary values at the last event at which the predicate was still false
 *                    (the end of the trace for an open span): a stability measure there tells a real liveness
 *                    violation from a false alarm; empty for everything that is not a span
 * @param message     for ERROR the Python traceback, for TIMEOUT the limit; otherwise empty
 * @param witness     for a predicate that returns the items violating it (a set, a list, or the rows
 *                    {@code forall} and {@code exists} fail on), the item this finding is about, normalized like row
 *                    values (a row as {@code "Table[node:oid]"}); null for a predicate that returned a truth value
 * @param belowThreshold whether a {@code --threshold} screened this finding out: it is reported but not counted
 * @param reads       what the predicate read when it found this (table names, derived values' names and the
 *                    built-ins {@code nodes}, {@code event}, {@code clock}), for {@code deja why}; empty if not known
 */
public record Violation(String predicate, Kind kind, Status status, CheckedEvent event,
                        Optional<Long> endPosition, Map<String, Object> aux, Map<String, Object> auxAtEnd,
                        String message, Object witness, boolean belowThreshold, List<String> reads) {
    /** How the predicate was declared. */
    public enum Kind { ALWAYS, EVENTUALLY }

    /** What the check found. */
    public enum Status { VIOLATED, ERROR, TIMEOUT }

    @JsonCreator
    public Violation {
        Objects.requireNonNull(predicate, "predicate");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(endPosition, "endPosition");
        // Aux values may be None in Python (null here), so no Map.copyOf; declaration order is kept.
        aux = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(aux));
        // Reports written before spans kept their end values have no auxAtEnd.
        auxAtEnd = auxAtEnd == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(auxAtEnd));
        Objects.requireNonNull(message, "message");
        reads = reads == null ? List.of() : List.copyOf(reads);
    }

    /** A finding with a witness, not screened, whose reads are not known. */
    public Violation(String predicate, Kind kind, Status status, CheckedEvent event, Optional<Long> endPosition,
                     Map<String, Object> aux, Map<String, Object> auxAtEnd, String message, Object witness,
                     boolean belowThreshold) {
        this(predicate, kind, status, event, endPosition, aux, auxAtEnd, message, witness, belowThreshold, List.of());
    }

    /** A finding without a witness, not screened. */
    public Violation(String predicate, Kind kind, Status status, CheckedEvent event, Optional<Long> endPosition,
                     Map<String, Object> aux, Map<String, Object> auxAtEnd, String message) {
        this(predicate, kind, status, event, endPosition, aux, auxAtEnd, message, null, false);
    }

    /** A finding that is not a span (or a span whose end values are not known). */
    public Violation(String predicate, Kind kind, Status status, CheckedEvent event, Optional<Long> endPosition,
                     Map<String, Object> aux, String message) {
        this(predicate, kind, status, event, endPosition, aux, Map.of(), message);
    }

    /** Whether this is an eventually-predicate's span that was still open at the end of what was checked. */
    public boolean openAtEnd() {
        return kind == Kind.EVENTUALLY && status == Status.VIOLATED && endPosition.isEmpty();
    }

    /**
     * Whether this finding makes the check fail, as the summary, the exit code and every other place count it:
     * every finding but an eventually-span that closed (the property held again) and one screened out by a
     * threshold.
     */
    public boolean counted() {
        boolean closedSpan = kind == Kind.EVENTUALLY && status == Status.VIOLATED && endPosition.isPresent();
        return !closedSpan && !belowThreshold;
    }

    /**
     * The words every command and the viewer use for this finding's status: {@code VIOLATED} (an always-predicate),
     * {@code open at end} and {@code closed at N} (eventually-spans), {@code ERROR}, {@code TIMEOUT}.
     */
    public String statusText() {
        if (status != Status.VIOLATED) {
            return status.name();
        }
        if (kind == Kind.EVENTUALLY) {
            return endPosition.map(end -> "closed at " + end).orElse("open at end");
        }
        return "VIOLATED";
    }

    /** This finding classified by a threshold. */
    public Violation withBelowThreshold(boolean value) {
        return new Violation(predicate, kind, status, event, endPosition, aux, auxAtEnd, message, witness, value, reads);
    }
}
