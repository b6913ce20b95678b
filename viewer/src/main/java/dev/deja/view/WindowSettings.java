package dev.deja.view;

import dev.deja.check.Threshold;
import dev.deja.check.Violation;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What the viewer window opens with.
 *
 * @param trace       the trace directory (its {@code check/} database, if any, supplies table rows)
 * @param violations  the violations for the stripe
 * @param thresholds  thresholds screening them into dark and light
 * @param at          the position to select first, if any (else the first violation, else the start)
 * @param filter      the filter to start with
 * @param classLoader loads node and message classes for replaying to an event
 */
public record WindowSettings(Path trace, List<Violation> violations, List<Threshold> thresholds, OptionalInt at,
                             EventFilter filter, ClassLoader classLoader) {
    public WindowSettings {
        Objects.requireNonNull(trace, "trace");
        violations = List.copyOf(violations);
        thresholds = List.copyOf(thresholds);
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(classLoader, "classLoader");
    }
}
