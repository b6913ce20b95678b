package dev.deja.runtime;

import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A network partition: from {@code startMillis} until {@code healMillis} of virtual time (since the run began),
 * messages between nodes of different groups are lost. Nodes named in no group form one more group together.
 *
 * <p>Written on the command line as {@code GROUP|GROUP@START..HEAL}, groups being comma-separated node ids
 * and times durations such as {@code 2s} or {@code 500ms}: {@code n1,n2|n3,n4,n5@2s..5s}.
 */
public record Partition(List<Set<NodeId>> groups, long startMillis, long healMillis) {
    public Partition {
        groups = groups.stream().map(Set::copyOf).toList();
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("a partition needs at least one group of nodes");
        }
        if (startMillis < 0 || healMillis <= startMillis) {
            throw new IllegalArgumentException("a partition must heal after it starts: " + startMillis + " ms .. "
                    + healMillis + " ms");
        }
        Set<NodeId> seen = new LinkedHashSet<>();
        for (Set<NodeId> group : groups) {
            for (NodeId node : group) {
                if (!seen.add(node)) {
                    throw new IllegalArgumentException("node " + node + " is in two groups of the partition");
                }
            }
        }
    }

    /** Parses {@code n1,n2|n3@2s..5s}; a malformed spec is refused with what was expected. */
    public static Partition parse(String spec) {
        String expected = " (expected GROUP|GROUP@START..HEAL, e.g. n1,n2|n3,n4@2s..5s)";
        int at = spec.lastIndexOf('@');
        if (at <= 0) {
            throw new IllegalArgumentException("partition '" + spec + "' has no @START..HEAL" + expected);
        }
        String[] times = spec.substring(at + 1).split("\\.\\.", -1);
        if (times.length != 2) {
            throw new IllegalArgumentException("partition '" + spec + "': times must read START..HEAL" + expected);
        }
        List<Set<NodeId>> groups = new ArrayList<>();
        for (String group : spec.substring(0, at).split("\\|", -1)) {
            Set<NodeId> members = new LinkedHashSet<>();
            for (String id : group.split(",", -1)) {
                if (id.isBlank()) {
                    throw new IllegalArgumentException("partition '" + spec + "' has an empty node id" + expected);
                }
                members.add(new NodeId(id.strip()));
            }
            groups.add(members);
        }
        return new Partition(groups, millis(times[0], spec), millis(times[1], spec));
    }

    /** Whether this partition separates {@code a} from {@code b} at {@code nowMillis} since the start. */
    public boolean separates(NodeId a, NodeId b, long nowMillis) {
        return nowMillis >= startMillis && nowMillis < healMillis && groupOf(a) != groupOf(b);
    }

    private int groupOf(NodeId node) {
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i).contains(node)) {
                return i;
            }
        }
        return groups.size();
    }

    /** The spec that {@link #parse} reads back. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Set<NodeId> group : groups) {
            text.append(text.isEmpty() ? "" : "|").append(String.join(",", group.stream().map(NodeId::value).sorted().toList()));
        }
        return text.append('@').append(startMillis).append("ms..").append(healMillis).append("ms").toString();
    }

    static long millis(String text, String context) {
        return FaultModel.millis(text, "'" + context + "'");
    }
}
