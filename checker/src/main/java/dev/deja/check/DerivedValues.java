package dev.deja.check;

import java.util.List;
import java.util.Objects;

/**
 * The values one derived value of a script took over the latest complete check of a stored history, kept with it so
 * that a re-check whose changed predicates read it can be given them instead of evaluating it.
 *
 * @param fingerprint what the derived value depends on (its code, what it reaches, the settings), as a digest
 * @param changes     every event at which its value or what it read changed, in position order
 */
public record DerivedValues(String fingerprint, List<Change> changes) {
    public DerivedValues {
        Objects.requireNonNull(fingerprint, "fingerprint");
        changes = List.copyOf(changes);
    }

    /**
     * One event at which the derived value changed.
     *
     * @param position the event's position
     * @param value    its new value as Python's {@code repr} writes it (a literal), or null if the value is unchanged
     * @param reads    what it read at this evaluation (names of tables, derived values and the built-ins {@code event},
     *                 {@code nodes}, {@code clock}), or null if unchanged
     */
    public record Change(long position, String value, List<String> reads) {
        public Change {
            reads = reads == null ? null : List.copyOf(reads);
        }
    }
}
