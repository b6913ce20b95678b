package dev.deja.view.internal;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;
import dev.deja.view.TraceModel;

/**
 * Every node's state in two runs at one step each, member by member, as MaceMC's debugger diffs a violating run
 * against a live one: the state of a node in run A is the "before" side of {@link ObjectTree#diff}, its state in
 * run B the "after" side, so a changed member reads {@code name = valueInA → valueInB}.
 *
 * @param positionA the step in run A: each node's state after its entries up to this position
 * @param positionB the entry of run B shown with it (each node's state there is after as many of its entries as
 *                  in run A)
 * @param nodes     every node's states and their difference, in lane order
 */
public record ComparedStates(int positionA, int positionB, List<NodeStates> nodes) {
    /** A node not running at the step (not started yet, or crashed). */
    static final ObjectTree NOT_RUNNING = ObjectTree.leaf("", "", "(not running)");

    public ComparedStates {
        nodes = List.copyOf(nodes);
    }

    /**
     * One node's state in both runs.
     *
     * @param node the node
     * @param inA  its state in run A
     * @param inB  its state in run B
     * @param diff A against B
     */
    record NodeStates(NodeId node, ObjectTree inA, ObjectTree inB, ObjectTree.Diff diff) {
        boolean differs() {
            return diff.changedBelow();
        }
    }

    /** Compares the states of {@code nodes} rendered from both runs. */
    static ComparedStates of(int positionA, int positionB, List<NodeId> nodes, Map<NodeId, ObjectTree> a,
                             Map<NodeId, ObjectTree> b) {
        List<NodeStates> states = new ArrayList<>();
        for (NodeId node : nodes) {
            ObjectTree inA = a.getOrDefault(node, rename(NOT_RUNNING, node));
            ObjectTree inB = b.getOrDefault(node, rename(NOT_RUNNING, node));
            // The roots carry the node's name on both sides, so a node's class or running state is its text.
            states.add(new NodeStates(node, inA, inB, inB.diff(inA)));
        }
        return new ComparedStates(positionA, positionB, states);
    }

    /**
     * Replays {@code trace} until every node has replayed as many of its entries as {@code cut} says (by lane) and
     * renders each node right after its last one (a node with none is not running).
     *
     * @throws IllegalArgumentException if the replay does not get there, naming the trace and the reason
     */
    static Map<NodeId, ObjectTree> statesAt(Trace trace, TraceModel model, int[] cut, ClassLoader classLoader,
                                            LongConsumer progress) {
        List<NodeId> nodes = model.nodes();
        Map<NodeId, ObjectTree> states = new LinkedHashMap<>();
        long last = -1;
        for (int lane = 0; lane < cut.length; lane++) {
            int entries = Math.min(cut[lane], model.laneSize(lane));
            if (entries == 0) {
                states.put(nodes.get(lane), rename(NOT_RUNNING, nodes.get(lane)));
            } else {
                last = Math.max(last, model.positionOf(lane, entries - 1));
            }
        }
        if (last < 0) {
            return states;
        }
        ReplayResult result = Replayer.replay(trace, Replayer.Options.defaults().withClassLoader(classLoader)
                .withKeepGoing(true).withPartial(true).withUntilPosition(last + 1)
                .withListener((event, at, state) -> {
                    progress.accept(1);
                    NodeId node = event.entry().node();
                    int lane = model.lane(node);
                    if (lane >= 0 && event.entry().seq() == Math.min(cut[lane], model.laneSize(lane)) - 1) {
                        Optional<Node> live = state.node(node);
                        states.put(node, live.isPresent()
                                ? ObjectTrees.render(node.value(), live.get()) : rename(NOT_RUNNING, node));
                    }
                }));
        if (states.size() < nodes.size()) {
            List<String> missing = nodes.stream().filter(n -> !states.containsKey(n)).map(NodeId::value).toList();
            String why = result.divergences().isEmpty() ? "it stopped before"
                    : "it diverged: " + result.divergences().getFirst().describe();
            throw new IllegalArgumentException(trace.directory() + ": the replay did not reach the step for "
                    + String.join(", ", missing) + " (" + why + "); see deja replay " + trace.directory());
        }
        return states;
    }

    private static ObjectTree rename(ObjectTree tree, NodeId node) {
        return new ObjectTree(node.value(), tree.type(), tree.text(), tree.children());
    }

    /** How many nodes' states differ. */
    public long differingNodes() {
        return nodes.stream().filter(NodeStates::differs).count();
    }

    /**
     * The difference as text, one member a line, as Mdb's diff shows it: a line only in run A starts with
     * {@code -}, only in run B with {@code +}, a member in both with two spaces; a changed value is a {@code -}
     * line and a {@code +} line. Nodes whose states are equal are named on one line; {@code full} also lists
     * their members, else only the differing nodes are shown in full.
     */
    public String text(boolean full) {
        StringBuilder out = new StringBuilder();
        for (NodeStates node : nodes) {
            if (!node.differs()) {
                out.append("  ").append(node.node()).append(": the same in A and B\n");
                if (full) {
                    lines(node.diff(), "    ", out);
                }
                continue;
            }
            out.append("  ").append(node.node()).append(": ").append(changes(node.diff()))
                    .append(" member(s) differ\n");
            lines(node.diff(), "    ", out);
        }
        return out.toString();
    }

    /** How many members differ under (and including) {@code diff}. */
    static int changes(ObjectTree.Diff diff) {
        if (diff.change() == ObjectTree.Change.ADDED || diff.change() == ObjectTree.Change.REMOVED) {
            return 1;
        }
        int count = diff.change() == ObjectTree.Change.CHANGED && diff.children().isEmpty() ? 1 : 0;
        for (ObjectTree.Diff child : diff.children()) {
            count += changes(child);
        }
        return count;
    }

    /** The lines of {@code diff} in Mdb's form (see {@link #text}). */
    static void lines(ObjectTree.Diff diff, String indent, StringBuilder out) {
        for (DiffLine line : lines(diff)) {
            out.append(line.mark()).append(' ').append(indent).append("  ".repeat(line.depth())).append(line.text())
                    .append('\n');
        }
    }

    /**
     * One line of a state diff.
     *
     * @param mark  {@code ' '} in both runs, {@code '-'} only in A (or A's value), {@code '+'} only in B
     * @param depth how deep the member is (0: the node)
     * @param text  {@code name = value}, or a set element's name
     * @param differs whether the line is part of a difference (its member or one under it differs)
     */
    record DiffLine(char mark, int depth, String text, boolean differs) {
    }

    /** The lines of {@code diff}, depth first. */
    static List<DiffLine> lines(ObjectTree.Diff diff) {
        List<DiffLine> lines = new ArrayList<>();
        collect(diff, 0, lines);
        return lines;
    }

    private static void collect(ObjectTree.Diff diff, int depth, List<DiffLine> lines) {
        String name = diff.name();
        boolean element = name.startsWith(ObjectTree.ELEMENT) && diff.children().isEmpty();
        switch (diff.change()) {
            case SAME -> lines.add(new DiffLine(' ', depth, element ? name : name + " = " + diff.text(), diff.changedBelow()));
            case CHANGED -> {
                lines.add(new DiffLine('-', depth, name + " = " + diff.before(), true));
                lines.add(new DiffLine('+', depth, name + " = " + diff.text(), true));
            }
            case ADDED -> lines.add(new DiffLine('+', depth, element ? name : name + " = " + diff.text(), true));
            case REMOVED -> lines.add(new DiffLine('-', depth, element ? name : name + " = " + diff.text(), true));
        }
        for (ObjectTree.Diff child : diff.children()) {
            collect(child, depth + 1, lines);
        }
    }
}
