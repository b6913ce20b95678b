package dev.deja.replay;

import dev.deja.node.NodeId;
import dev.deja.trace.EventJson;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.TraceEvent;
import java.util.List;
import java.util.Objects;

/**
 * A node did something on replay that its recording does not show: the first point where the replayed
 * execution left the recorded one.
 *
 * @param node        the node
 * @param incarnation its incarnation at that point
 * @param seq         the seq of the recorded entry that did not match (or would have come next)
 * @param lamport     that entry's Lamport clock, or the node's last one when its log had no entry there
 * @param expected    what the recording holds there
 * @param actual      what the replayed node did instead
 * @param recentEvents up to 20 recorded entries of the node that replayed identically before this point,
 *                    oldest first
 */
public record Divergence(NodeId node, int incarnation, long seq, long lamport, String expected, String actual,
                         List<TraceEvent> recentEvents) {
    /** How many matched entries a divergence carries for context. */
    public static final int RECENT_EVENTS = 20;

    public Divergence {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(actual, "actual");
        recentEvents = List.copyOf(recentEvents);
    }

    /** A multi-line description for humans. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("divergence at node ").append(node).append(" (incarnation ").append(incarnation).append("), seq ")
                .append(seq).append(", lamport ").append(lamport).append('\n');
        text.append("  expected: ").append(expected).append('\n');
        text.append("  actual:   ").append(actual).append('\n');
        if (!recentEvents.isEmpty()) {
            text.append("  last ").append(recentEvents.size()).append(" matching events of ").append(node).append(":\n");
            // As deja dump prints them: message contents as JSON (decoded without their classes), not as bytes.
            MessageCodec codec = MessageCodec.defaultCodec();
            for (TraceEvent event : recentEvents) {
                text.append("    ").append(EventJson.toText(event, codec).strip()).append('\n');
            }
        }
        return text.toString();
    }
}
