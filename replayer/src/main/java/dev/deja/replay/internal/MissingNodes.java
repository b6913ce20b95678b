package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Finds cluster nodes without a log: nodes named as peers in a recorded start entry but absent from the
 * trace. Their sends cannot be checked and their state cannot be replayed, so by default the replay refuses.
 */
final class MissingNodes {
    private static final int EXAMPLES = 5;

    private MissingNodes() {
    }

    /** Throws a {@link ReplayException} naming every missing node and the recorded messages that came from it. */
    static void refuseIfMissing(String traceName, List<NodeStream> streams) {
        Set<NodeId> recorded = new HashSet<>();
        streams.forEach(stream -> recorded.add(stream.node()));
        // The peers of the first start suffice: restarts run with the same cluster file.
        TreeMap<NodeId, Set<NodeId>> namedBy = new TreeMap<>();
        for (NodeStream stream : streams) {
            TraceEvent first = stream.peek(0);
            if (first != null && first.event() instanceof Event.Start start) {
                for (NodeId peer : start.peers()) {
                    if (!recorded.contains(peer)) {
                        namedBy.computeIfAbsent(peer, p -> new TreeSet<>()).add(stream.node());
                    }
                }
            }
        }
        if (namedBy.isEmpty()) {
            return;
        }
        StringBuilder message = new StringBuilder(traceName).append(": ");
        for (var missing : namedBy.entrySet()) {
            NodeId node = missing.getKey();
            List<TraceEvent> examples = new ArrayList<>();
            long[] count = {0};
            for (NodeStream stream : streams) {
                stream.findFromStart(entry -> {
                    if (entry.event() instanceof Event.Receive receive && receive.from().equals(node)) {
                        if (count[0]++ < EXAMPLES) {
                            examples.add(entry);
                        }
                    }
                    return false;
                });
            }
            message.append("node ").append(node).append(" has no log (it is a peer in the start of ")
                    .append(String.join(", ", missing.getValue().stream().map(NodeId::value).toList()))
                    .append("); ").append(count[0]).append(" recorded message(s) come from it");
            for (TraceEvent example : examples) {
                message.append("\n  ").append(example);
            }
            if (count[0] > examples.size()) {
                message.append("\n  ...");
            }
            message.append('\n');
        }
        message.append("copy the missing node directories into the trace, or replay the others with --partial");
        throw new ReplayException(message.toString());
    }
}
