package dev.deja.check;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.TraceEvent;
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
    /** The checker's view of {@code entry}, a trace entry that began a handler, at merged position {@code position}. */
    public static CheckedEvent of(TraceEvent entry, long position) {
        Optional<String> messageType = Optional.empty();
        Optional<NodeId> from = Optional.empty();
        if (entry.event() instanceof Event.Receive receive) {
            messageType = Optional.of(receive.message().simpleType());
            from = Optional.of(receive.from());
        }
        return new CheckedEvent(position, entry.node(), entry.incarnation(), entry.seq(), entry.lamport(),
                entry.atMillis(), entry.event().typeName(), messageType, from);
    }

    public CheckedEvent {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(messageType, "messageType");
        Objects.requireNonNull(from, "from");
    }
}
