package dev.deja.check;

import dev.deja.node.NodeId;
import java.util.Objects;
import java.util.Optional;

/**
 * One replayed event as the checker sees it: enough to evaluate the built-ins ({@code event}, {@code now},
 * {@code stats}, {@code nodes}) without the trace, so a re-check from stored history gets the same values.
 *
 * @param position    0-based index of the entry in the merged happens-before order
 * @param node        the node that executed it
 * @param incarnation that node's incarnation
 * @param seq         the entry's per-node sequence number
 * @param lamport     its Lamport clock
 * @param atMillis    the node's clock when the handler began
 * @param type        the entry type as in the trace ({@code start}, {@code receive}, {@code timer}, {@code crash}, ...)
 * @param messageType for a receive, the message's type name; otherwise empty
 * @param from        for a receive, the sender; otherwise empty
 */
public record CheckedEvent(long position, NodeId node, int incarnation, long seq, long lamport, long atMillis,
                           String type, Optional<String> messageType, Optional<NodeId> from) {
    public CheckedEvent {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(messageType, "messageType");
        Objects.requireNonNull(from, "from");
    }
}
