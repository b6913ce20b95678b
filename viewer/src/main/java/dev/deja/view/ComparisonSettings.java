package dev.deja.view;

import dev.deja.trace.Trace;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a comparison of two runs shows ({@code deja view A --compare B}).
 *
 * @param traceA      run A, opened (its node states are replayed from it)
 * @param traceB      run B, opened
 * @param at          the position of run A whose step is compared (see {@link TraceComparison#cut}); empty: A's
 *                    first difference
 * @param widthPixels a picture's width, or 0 to choose one
 * @param classLoader loads node and message classes for replaying
 */
public record ComparisonSettings(Trace traceA, Trace traceB, OptionalInt at, int widthPixels, ClassLoader classLoader) {
    public ComparisonSettings {
        Objects.requireNonNull(traceA, "traceA");
        Objects.requireNonNull(traceB, "traceB");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(classLoader, "classLoader");
        if (widthPixels < 0 || widthPixels > PictureSettings.MAX_WIDTH_PIXELS) {
            throw new IllegalArgumentException("the width must be between 1 and " + PictureSettings.MAX_WIDTH_PIXELS
                    + " pixels, was " + widthPixels);
        }
    }

    /** The step compared: {@link #at}, else run A's first difference, else its last position. */
    public int stepA(TraceComparison comparison) {
        if (at.isPresent()) {
            return at.getAsInt();
        }
        return comparison.firstDifference(TraceComparison.Side.A).orElse(comparison.a().size() - 1);
    }
}
