package dev.deja.view;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.EventKind;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Two runs of the same cluster aligned on their common prefix, as MaceMC's debugger compares a violating run
 * with its nearest live run: which entries both runs share, where they first differ, and which entry of one run
 * stands for an entry of the other.
 *
 * <p>The <b>common prefix</b> is the largest set of entries that is, on every node, a prefix of the node's log
 * identical in both runs (same incarnation and same recorded event: kind, peer, message id and content, timer,
 * observed value; times and Lamport clocks are not compared), and closed under happens-before: a receive is in it
 * only if the send of its message is, at the same place of the same node in both runs. So the prefix is a
 * consistent cut of each run, and both runs agree on everything in it even where their merged orders interleave
 * it differently. An entry in the prefix has a <b>counterpart</b> in the other run: the entry at the same index of
 * the same node's log.
 *
 * <p>The <b>first difference</b> of a run is its earliest entry (in its merged order) outside the prefix; each
 * node's first entry outside the prefix is its {@link NodeDifference}.
 *
 * <p>Immutable; safe to read from any thread.
 */
public final class TraceComparison {
    /** Which of the two runs. */
    public enum Side {
        A, B;

        /** The other run. */
        public Side other() {
            return this == A ? B : A;
        }
    }

    /** Why a node's log leaves the common prefix where it does. */
    public enum Divergence {
        /** Both runs have an entry there, and they differ. */
        DIFFERENT_ENTRY,
        /** The entries are the same, but the message received was sent outside the common prefix. */
        AFTER_A_DIFFERENCE,
        /** Only run A has more entries on this node. */
        ONLY_IN_A,
        /** Only run B has more entries on this node. */
        ONLY_IN_B,
        /** The node's logs are identical in both runs. */
        NONE
    }

    /**
     * Where one node's logs part.
     *
     * @param node       the node
     * @param ordinal    the index on the node's log of its first entry outside the common prefix
     * @param divergence why the entry is outside
     * @param inA        the entry of run A at that index, if it has one
     * @param inB        the entry of run B at that index, if it has one
     */
    public record NodeDifference(NodeId node, int ordinal, Divergence divergence, Optional<TraceEvent> inA,
                                 Optional<TraceEvent> inB) {
        public NodeDifference {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(divergence, "divergence");
            Objects.requireNonNull(inA, "inA");
            Objects.requireNonNull(inB, "inB");
        }
    }

    private final TraceModel a;
    private final TraceModel b;
    private final BitSet commonA;
    private final BitSet commonB;
    /** How many entries of each lane are in the common prefix. */
    private final int[] commonCount;
    private final List<NodeDifference> differences;

    private TraceComparison(TraceModel a, TraceModel b, BitSet commonA, BitSet commonB, int[] commonCount,
                            List<NodeDifference> differences) {
        this.a = a;
        this.b = b;
        this.commonA = commonA;
        this.commonB = commonB;
        this.commonCount = commonCount;
        this.differences = List.copyOf(differences);
    }

    /**
     * Aligns {@code a} and {@code b}.
     *
     * @throws IllegalArgumentException if they are not runs of one cluster: other nodes, or a node started
     *                                  with another class, named with both traces
     */
    public static TraceComparison of(TraceModel a, TraceModel b) {
        if (!a.nodes().equals(b.nodes())) {
            throw new IllegalArgumentException(a.name() + " and " + b.name() + " are runs of different clusters: "
                    + a.name() + " has nodes " + names(a) + ", " + b.name() + " has " + names(b));
        }
        int lanes = a.nodes().size();
        for (int lane = 0; lane < lanes; lane++) {
            Optional<String> classA = nodeClass(a, lane);
            Optional<String> classB = nodeClass(b, lane);
            if (classA.isPresent() && classB.isPresent() && !classA.equals(classB)) {
                throw new IllegalArgumentException(a.name() + " and " + b.name() + " are runs of different clusters: "
                        + "node " + a.nodes().get(lane) + " runs " + classA.get() + " in " + a.name() + " but "
                        + classB.get() + " in " + b.name());
            }
        }
        // Per lane, how many leading entries are identical in both runs.
        int[] identical = new int[lanes];
        for (int lane = 0; lane < lanes; lane++) {
            int limit = Math.min(a.laneSize(lane), b.laneSize(lane));
            int ordinal = 0;
            while (ordinal < limit && same(a.entry(a.positionOf(lane, ordinal)), b.entry(b.positionOf(lane, ordinal)))) {
                ordinal++;
            }
            identical[lane] = ordinal;
        }
        // Closed under happens-before: walk A's merged order (sends come before their receives) and stop a lane
        // at its first entry that is not identical or receives a message sent outside the prefix.
        int[] count = new int[lanes];
        boolean[] stopped = new boolean[lanes];
        boolean[] afterDifference = new boolean[lanes];
        BitSet commonA = new BitSet(a.size());
        for (int position = 0; position < a.size(); position++) {
            int lane = a.laneOf(position);
            if (stopped[lane]) {
                continue;
            }
            int ordinal = a.ordinal(position);
            if (ordinal >= identical[lane]) {
                stopped[lane] = true;
                continue;
            }
            if (a.type(position) == EventKind.RECEIVE && !sentInPrefix(a, b, position, commonA)) {
                stopped[lane] = true;
                afterDifference[lane] = true;
                continue;
            }
            commonA.set(position);
            count[lane]++;
        }
        BitSet commonB = new BitSet(b.size());
        List<NodeDifference> differences = new ArrayList<>();
        for (int lane = 0; lane < lanes; lane++) {
            for (int ordinal = 0; ordinal < count[lane]; ordinal++) {
                commonB.set(b.positionOf(lane, ordinal));
            }
            int at = count[lane];
            Optional<TraceEvent> inA = at < a.laneSize(lane) ? Optional.of(a.entry(a.positionOf(lane, at))) : Optional.empty();
            Optional<TraceEvent> inB = at < b.laneSize(lane) ? Optional.of(b.entry(b.positionOf(lane, at))) : Optional.empty();
            Divergence divergence;
            if (inA.isPresent() && inB.isPresent()) {
                divergence = afterDifference[lane] ? Divergence.AFTER_A_DIFFERENCE : Divergence.DIFFERENT_ENTRY;
            } else if (inA.isPresent()) {
                divergence = Divergence.ONLY_IN_A;
            } else if (inB.isPresent()) {
                divergence = Divergence.ONLY_IN_B;
            } else {
                divergence = Divergence.NONE;
            }
            differences.add(new NodeDifference(a.nodes().get(lane), at, divergence, inA, inB));
        }
        return new TraceComparison(a, b, commonA, commonB, count, differences);
    }

    /** Whether the message {@code a}'s receive at {@code position} was sent in the prefix, at the same place in both runs. */
    private static boolean sentInPrefix(TraceModel a, TraceModel b, int position, BitSet commonA) {
        int sendA = a.counterpart(position);
        int receiveB = b.positionOf(a.laneOf(position), a.ordinal(position));
        int sendB = b.counterpart(receiveB);
        if (sendA < 0 || sendB < 0) {
            // From an unrecorded node (a client): the identical entry is all there is to compare.
            return sendA < 0 && sendB < 0;
        }
        return commonA.get(sendA) && a.laneOf(sendA) == b.laneOf(sendB) && a.ordinal(sendA) == b.ordinal(sendB);
    }

    private static boolean same(TraceEvent x, TraceEvent y) {
        return x.incarnation() == y.incarnation() && x.event().equals(y.event());
    }

    private static Optional<String> nodeClass(TraceModel model, int lane) {
        if (model.laneSize(lane) == 0) {
            return Optional.empty();
        }
        return model.entry(model.positionOf(lane, 0)).event() instanceof Event.Start start
                ? Optional.of(start.nodeClass()) : Optional.empty();
    }

    private static String names(TraceModel model) {
        return String.join(", ", model.nodes().stream().map(NodeId::value).toList());
    }

    /** Run A. */
    public TraceModel a() {
        return a;
    }

    /** Run B. */
    public TraceModel b() {
        return b;
    }

    /** The run on {@code side}. */
    public TraceModel model(Side side) {
        return side == Side.A ? a : b;
    }

    /** The positions of {@code side}'s run that are in the common prefix (a copy). */
    public BitSet common(Side side) {
        return (BitSet) (side == Side.A ? commonA : commonB).clone();
    }

    /** Whether the entry at {@code position} of {@code side}'s run is in the common prefix. */
    public boolean isCommon(Side side, int position) {
        return (side == Side.A ? commonA : commonB).get(position);
    }

    /** How many entries the common prefix holds (the same in both runs). */
    public int commonSize() {
        return commonA.cardinality();
    }

    /** How many entries of {@code node}'s log are in the common prefix. */
    public int commonCount(NodeId node) {
        int lane = a.lane(node);
        if (lane < 0) {
            throw new IllegalArgumentException("no node " + node + " in " + a.name());
        }
        return commonCount[lane];
    }

    /** Whether the two runs are the same run: every entry of both is in the common prefix. */
    public boolean identical() {
        return commonSize() == a.size() && commonSize() == b.size();
    }

    /** The position of {@code side}'s earliest entry outside the common prefix, if it has one. */
    public OptionalInt firstDifference(Side side) {
        TraceModel model = model(side);
        int first = (side == Side.A ? commonA : commonB).nextClearBit(0);
        return first < model.size() ? OptionalInt.of(first) : OptionalInt.empty();
    }

    /**
     * The node whose log parts first: that of the earliest entry outside the prefix in A's merged order (in B's,
     * if A has none), or empty if the runs are identical.
     */
    public Optional<NodeDifference> firstNodeDifference() {
        for (Side side : Side.values()) {
            OptionalInt first = firstDifference(side);
            if (first.isPresent()) {
                NodeId node = model(side).nodes().get(model(side).laneOf(first.getAsInt()));
                return differences.stream().filter(d -> d.node().equals(node)).findFirst();
            }
        }
        return Optional.empty();
    }

    /** Every node's difference, in lane order (nodes whose logs are identical included, as {@link Divergence#NONE}). */
    public List<NodeDifference> differences() {
        return differences;
    }

    /**
     * The entry of the other run that stands for the entry at {@code position} of {@code side}'s run: its
     * counterpart if the entry is in the common prefix, else -1.
     */
    public int counterpart(Side side, int position) {
        TraceModel from = model(side);
        if (position < 0 || position >= from.size() || !isCommon(side, position)) {
            return -1;
        }
        return model(side.other()).positionOf(from.laneOf(position), from.ordinal(position));
    }

    /**
     * The entry of the other run to show with {@code position} of {@code side}'s run: the entry at the same index
     * of the same node's log (its counterpart in the common prefix), or the node's last entry if the other run has
     * fewer; -1 if the node has no entry there at all.
     */
    public int aligned(Side side, int position) {
        TraceModel from = model(side);
        TraceModel other = model(side.other());
        int lane = from.laneOf(position);
        int size = other.laneSize(lane);
        return size == 0 ? -1 : other.positionOf(lane, Math.min(from.ordinal(position), size - 1));
    }

    /**
     * The step {@code position} of {@code side}'s run stands for, as how many entries of each node's log (by lane)
     * that run had recorded up to and including it. Each node's state at a step is its state after that many of
     * its entries, in either run: a node's state depends on its own log alone, so the nodes whose entries up to the
     * step are common have the same state in both runs, and a difference shows where the logs part.
     */
    public int[] cut(Side side, int position) {
        TraceModel model = model(side);
        int[] cut = new int[model.nodes().size()];
        for (int lane = 0; lane < cut.length; lane++) {
            // The number of the lane's entries at positions <= position: a binary search on the lane's positions.
            int low = 0;
            int high = model.laneSize(lane);
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (model.positionOf(lane, middle) <= position) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            cut[lane] = low;
        }
        return cut;
    }
}
