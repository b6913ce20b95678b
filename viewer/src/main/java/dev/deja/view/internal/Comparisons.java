package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.TraceEvent;
import dev.deja.view.ComparisonSettings;
import dev.deja.view.TraceComparison;
import dev.deja.view.TraceComparison.NodeDifference;
import dev.deja.view.TraceComparison.Side;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongConsumer;

/** The comparison of two runs in words: the common prefix, where each node's log parts, the state diff. */
public final class Comparisons {
    private Comparisons() {
    }

    /** The states of every node at the settings' step in both runs (replays both up to there). */
    public static ComparedStates states(TraceComparison comparison, ComparisonSettings settings, LongConsumer progress) {
        int positionA = settings.stepA(comparison);
        return states(comparison, settings, Side.A, positionA, progress);
    }

    /**
     * Every node's state in both runs at the step {@code position} of {@code side}'s run stands for: after as many
     * of its entries as that run had up to there (see {@link TraceComparison#cut}).
     */
    static ComparedStates states(TraceComparison comparison, ComparisonSettings settings, Side side, int position,
                                 LongConsumer progress) {
        int[] cut = comparison.cut(side, position);
        int other = comparison.aligned(side, position);
        int positionA = side == Side.A ? position : other;
        int positionB = side == Side.B ? position : other;
        List<NodeId> nodes = comparison.a().nodes();
        return ComparedStates.of(positionA, positionB, nodes,
                ComparedStates.statesAt(settings.traceA(), comparison.a(), cut, settings.classLoader(), progress),
                ComparedStates.statesAt(settings.traceB(), comparison.b(), cut, settings.classLoader(), progress));
    }

    /** How many entries {@link #states} replays at most: both runs up to the compared step. */
    public static long entriesToReplay(TraceComparison comparison, ComparisonSettings settings) {
        int positionA = settings.stepA(comparison);
        int[] cut = comparison.cut(Side.A, positionA);
        long total = 0;
        for (TraceModel model : List.of(comparison.a(), comparison.b())) {
            int last = -1;
            for (int lane = 0; lane < cut.length; lane++) {
                int entries = Math.min(cut[lane], model.laneSize(lane));
                if (entries > 0) {
                    last = Math.max(last, model.positionOf(lane, entries - 1));
                }
            }
            total += last + 1;
        }
        return total;
    }

    /** Draws the picture of the comparison (the toolkit must be running). */
    public static void writePng(TraceComparison comparison, ComparisonSettings settings, ComparedStates states, Path file) {
        ComparePicture.writePng(comparison, settings, states, file);
    }

    /** A trace's name without its parent directories: the text is the same wherever the traces lie. */
    static String shortName(TraceModel model) {
        Path name = Path.of(model.name()).getFileName();
        return name == null ? model.name() : name.toString();
    }

    /** The alignment in lines: the runs, the common prefix, the first difference, each node's parting entries. */
    public static String summary(TraceComparison comparison) {
        TraceModel a = comparison.a();
        TraceModel b = comparison.b();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "A: %s, %d entries; B: %s, %d entries; %d node(s)%n", shortName(a), a.size(),
                shortName(b), b.size(), a.nodes().size()));
        List<String> perNode = new ArrayList<>();
        for (NodeId node : a.nodes()) {
            perNode.add(node + " " + comparison.commonCount(node));
        }
        out.append(String.format(Locale.ROOT, "common prefix: %d entries (%s)%n", comparison.commonSize(),
                String.join(", ", perNode)));
        if (comparison.identical()) {
            out.append("the runs are identical\n");
            return out.toString();
        }
        Optional<NodeDifference> first = comparison.firstNodeDifference();
        out.append(String.format(Locale.ROOT, "first difference: A %s, B %s, node %s%n",
                position(comparison, Side.A), position(comparison, Side.B),
                first.map(d -> d.node().value()).orElse("-")));
        for (NodeDifference difference : comparison.differences()) {
            if (difference.divergence() == TraceComparison.Divergence.NONE) {
                out.append(String.format(Locale.ROOT, "  %s: the same %d entries in both%n", difference.node(),
                        difference.ordinal()));
                continue;
            }
            out.append(String.format(Locale.ROOT, "  %s seq %d%s:%n", difference.node(), difference.ordinal(),
                    difference.divergence() == TraceComparison.Divergence.AFTER_A_DIFFERENCE
                            ? " (the same entry, but its message was sent after a difference)" : ""));
            String inA = describe(a, difference.inA());
            String inB = describe(b, difference.inB());
            out.append("    - A: ").append(inA).append('\n');
            out.append("    + B: ").append(inB).append('\n');
            if (difference.divergence() == TraceComparison.Divergence.DIFFERENT_ENTRY
                    && inA.substring(inA.indexOf(':')).equals(inB.substring(inB.indexOf(':')))) {
                out.append("      (they differ in what the line leaves out: the incarnation, or a receive's sender clock at the"
                        + " send)\n");
            }
        }
        return out.toString();
    }

    private static String position(TraceComparison comparison, Side side) {
        return comparison.firstDifference(side).isPresent()
                ? "position " + comparison.firstDifference(side).getAsInt() : "none (ends in the common prefix)";
    }

    private static String describe(TraceModel model, Optional<TraceEvent> entry) {
        if (entry.isEmpty()) {
            return "(no more entries)";
        }
        int lane = model.lane(entry.get().node());
        int position = model.positionOf(lane, (int) entry.get().seq());
        return "position " + position + ": " + EventText.describe(model, position);
    }

    /** The summary and the state diff at the settings' step, as {@code deja view --compare --text} prints it. */
    public static String report(TraceComparison comparison, ComparisonSettings settings, boolean full,
                                LongConsumer progress) {
        ComparedStates states = states(comparison, settings, progress);
        return summary(comparison) + String.format(Locale.ROOT, "state of every node at A position %d (in B: after"
                        + " as many of its own entries; B's entry there: %d): %d of %d node(s) differ (- A, + B)%n", states.positionA(), states.positionB(), states.differingNodes(),
                states.nodes().size()) + states.text(full);
    }
}
