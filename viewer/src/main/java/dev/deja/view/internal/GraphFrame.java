package dev.deja.view.internal;

import dev.deja.check.Violation;
import dev.deja.view.Cone;
import dev.deja.view.TraceModel;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * What one frame of the graph shows, independent of where it is drawn: the model, the events that pass the
 * filter, the lanes shown, the selection and its cone, the violations and how each is shaded.
 *
 * @param model      the trace
 * @param arcs       the model's arc index
 * @param shown      the positions that pass the filter, or null for all
 * @param rowOfLane  each lane's row, or -1 when hidden
 * @param selected   the selected position, or -1
 * @param cone       the cone to highlight (everything else dimmed), or null
 * @param violations the violations for the stripe
 * @param dark       which violations are drawn dark
 * @param title      a title line, or null for none
 * @param legend     whether to draw the legend
 * @param faded      positions drawn faded (the prefix a compared run shares with the other), or null for none
 */
record GraphFrame(TraceModel model, ArcIndex arcs, BitSet shown, int[] rowOfLane, int selected, Cone cone,
                  List<Violation> violations, Predicate<Violation> dark, String title, boolean legend, BitSet faded) {
    /** How opaque a faded entry is: readable, but plainly behind the rest. */
    static final double FADED_ALPHA = 0.3;
    /** How opaque an entry outside the cone is. */
    static final double DIMMED_ALPHA = 0.15;

    GraphFrame(TraceModel model, ArcIndex arcs, BitSet shown, int[] rowOfLane, int selected, Cone cone,
               List<Violation> violations, Predicate<Violation> dark, String title, boolean legend) {
        this(model, arcs, shown, rowOfLane, selected, cone, violations, dark, title, legend, null);
    }

    GraphFrame {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(arcs, "arcs");
        Objects.requireNonNull(rowOfLane, "rowOfLane");
        violations = List.copyOf(violations);
        Objects.requireNonNull(dark, "dark");
    }

    /** The stripe's rows: the predicates with a violation, by name. */
    List<String> predicates() {
        return List.copyOf(new TreeSet<>(violations.stream().map(Violation::predicate).toList()));
    }

    /** Whether the entry at {@code position} is drawn (filter only; lanes are checked separately). */
    boolean isShown(int position) {
        return shown == null || shown.get(position);
    }

    /** Whether the entry at {@code position} is drawn at full strength (no cone, or inside it). */
    boolean isLit(int position) {
        return cone == null || cone.contains(position);
    }

    /** How opaque the entry at {@code position} is drawn: 1, dimmed outside the cone, or faded. */
    double alpha(int position) {
        if (!isLit(position)) {
            return DIMMED_ALPHA;
        }
        return faded != null && faded.get(position) ? FADED_ALPHA : 1;
    }

    /** The same frame with {@code positions} faded and another title. */
    GraphFrame withFaded(BitSet positions, String newTitle) {
        return new GraphFrame(model, arcs, shown, rowOfLane, selected, cone, violations, dark, newTitle, legend, positions);
    }

    /** Rows for every lane when all are shown. */
    static int[] allRows(int lanes) {
        int[] rows = new int[lanes];
        for (int i = 0; i < lanes; i++) {
            rows[i] = i;
        }
        return rows;
    }
}
