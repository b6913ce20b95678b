package dev.deja.view;

import dev.deja.check.Threshold;
import dev.deja.check.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a picture of a trace shows: a window of positions, how wide the picture is, which events, the
 * violations of a check under the stripe and the thresholds that screen them, and optionally one selected
 * event whose happens-before cone is highlighted.
 *
 * @param fromPosition  the first position shown
 * @param toPosition    the last position shown (inclusive); clipped to the end of the trace
 * @param widthPixels   the picture's width, or 0 to choose one from the number of positions shown
 * @param filter        which events are drawn
 * @param violations    the violations under the graph (empty: no stripe)
 * @param thresholds    thresholds screening the violations into dark and light
 * @param selected      an event to mark and, with {@link Highlight#CONE}, whose cone to highlight
 * @param highlight     what to do with the selected event
 */
public record PictureSettings(int fromPosition, int toPosition, int widthPixels, EventFilter filter,
                              List<Violation> violations, List<Threshold> thresholds, OptionalInt selected,
                              Highlight highlight) {
    /** How the selected event is shown. */
    public enum Highlight {
        /** A ring around it. */
        MARK,
        /** A ring around it, and everything outside its happens-before cone dimmed. */
        CONE
    }

    /** The widest picture drawn, in pixels. */
    public static final int MAX_WIDTH_PIXELS = 16_000;

    public PictureSettings {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(selected, "selected");
        Objects.requireNonNull(highlight, "highlight");
        violations = List.copyOf(violations);
        thresholds = List.copyOf(thresholds);
        if (fromPosition < 0 || toPosition < fromPosition) {
            throw new IllegalArgumentException("the positions shown must satisfy 0 <= from <= to, were " + fromPosition
                    + ".." + toPosition);
        }
        if (widthPixels < 0 || widthPixels > MAX_WIDTH_PIXELS) {
            throw new IllegalArgumentException("the width must be between 1 and " + MAX_WIDTH_PIXELS + " pixels, was " + widthPixels);
        }
    }

    /**
     * Whether {@code violation} is drawn dark: it counts as a violation ({@link Violation#counted()}: not a closed
     * span, not screened out by the check's thresholds) and every threshold given here that applies to it passes.
     */
    public boolean isDark(Violation violation) {
        if (!violation.counted()) {
            return false;
        }
        for (Threshold threshold : thresholds) {
            if (threshold.appliesTo(violation) && !threshold.passes(violation)) {
                return false;
            }
        }
        return true;
    }

    /** Everything of a trace with {@code size} entries. */
    public static Builder builder(int size) {
        return new Builder(size);
    }

    /** Builds settings field by field; starts with the whole trace, every event, no violations. */
    public static final class Builder {
        private int fromPosition;
        private int toPosition;
        private int widthPixels;
        private EventFilter filter = EventFilter.ALL;
        private List<Violation> violations = List.of();
        private final List<Threshold> thresholds = new ArrayList<>();
        private OptionalInt selected = OptionalInt.empty();
        private Highlight highlight = Highlight.MARK;

        private Builder(int size) {
            toPosition = Math.max(0, size - 1);
        }

        public Builder range(int from, int to) {
            fromPosition = from;
            toPosition = to;
            return this;
        }

        public Builder widthPixels(int value) {
            widthPixels = value;
            return this;
        }

        public Builder filter(EventFilter value) {
            filter = value;
            return this;
        }

        public Builder violations(List<Violation> value) {
            violations = value;
            return this;
        }

        public Builder threshold(Threshold value) {
            thresholds.add(value);
            return this;
        }

        public Builder thresholds(List<Threshold> values) {
            thresholds.addAll(values);
            return this;
        }

        public Builder selected(int position, Highlight how) {
            selected = OptionalInt.of(position);
            highlight = how;
            return this;
        }

        public PictureSettings build() {
            return new PictureSettings(fromPosition, toPosition, widthPixels, filter, violations, thresholds, selected,
                    highlight);
        }
    }
}
