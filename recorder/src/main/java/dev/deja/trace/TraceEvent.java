package dev.deja.trace;

import dev.deja.node.NodeId;
import java.util.Objects;

/**
 * One entry of a node's log.
 *
 * @param node        the node that recorded it
 * @param incarnation the node's incarnation (1 for the first start)
 * @param seq         position in the node's log: 0, 1, 2, ... across all incarnations, without gaps
 * @param lamport     the node's Lamport clock at this event; strictly increasing along the node's log
 * @param atMillis    the node's wall (or virtual) clock when the event was recorded, for humans and the
 *                    checker's {@code now(node)}; not an input the node observed
 * @param event       what happened
 */
public record TraceEvent(NodeId node, int incarnation, long seq, long lamport, long atMillis, Event event) {
    public TraceEvent {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(event, "event");
        if (incarnation < 1) {
            throw new IllegalArgumentException("incarnation must be >= 1, was " + incarnation);
        }
        if (seq < 0 || lamport < 1) {
            throw new IllegalArgumentException("seq must be >= 0 and lamport >= 1, were " + seq + ", " + lamport);
        }
    }

    @Override
    public String toString() {
        return node + "#" + seq + " (inc " + incarnation + ", lamport " + lamport + ") " + event;
    }
}
