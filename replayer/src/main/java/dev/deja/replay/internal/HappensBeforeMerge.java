package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.EventJson;
import dev.deja.trace.TraceEvent;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Merges per-node logs into one total order by (Lamport clock, node id, seq): a k-way merge holding one head
 * entry per node, so memory does not grow with the trace.
 *
 * <p>Since a receive's clock exceeds its send's, this order puts every send before its receive, and with the
 * per-node rules checked by {@link NodeStream} it is a linearization of happens-before. Validation, failing
 * with {@link ReplayException} naming both entries: each receive's carried sender clock is below the
 * receive's, and when the sender was recorded, the sender's log has a send with that message id and exactly
 * that clock. Sends are remembered in a bounded table (oldest forgotten); a receive whose send might have been
 * forgotten is not checked against the sender. Messages from unrecorded nodes (clients) are legal. Not
 * thread-safe.
 */
public final class HappensBeforeMerge implements Iterator<TraceEvent>, AutoCloseable {
    /** Entries compared by the merge order. */
    static final Comparator<TraceEvent> ORDER = (a, b) -> { // by hand: this runs for every entry of the trace
        int byClock = Long.compare(a.lamport(), b.lamport());
        if (byClock != 0) {
            return byClock;
        }
        int byNode = a.node().compareTo(b.node());
        return byNode != 0 ? byNode : Long.compare(a.seq(), b.seq());
    };

    /** The default number of sends remembered for checking receives. */
    static final int DEFAULT_REMEMBERED_SENDS = 1 << 18;

    private final String traceName;
    private final Map<NodeId, NodeStream> streams = new HashMap<>();
    private final PriorityQueue<NodeStream> heads = new PriorityQueue<>(
            (a, b) -> ORDER.compare(a.peek(0), b.peek(0)));
    private final RememberedSends sends;
    // Small numbers for node ids in the remembered sends (senders are recorded nodes, receivers any node).
    private final Map<NodeId, Integer> nodeNumbers = new HashMap<>();

    /**
     * @param traceName       names the trace in error messages
     * @param nodeStreams     one stream per recorded node
     * @param rememberedSends how many recent sends to keep for checking receives against
     */
    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams, int rememberedSends) {
        this.traceName = traceName;
        this.sends = new RememberedSends(rememberedSends);
        for (NodeStream stream : nodeStreams) {
            if (streams.put(stream.node(), stream) != null) {
                throw new IllegalArgumentException("two logs of node " + stream.node());
            }
            if (stream.peek(0) != null) {
                heads.add(stream);
            }
        }
    }

    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams) {
        this(traceName, nodeStreams, DEFAULT_REMEMBERED_SENDS);
    }

    /** The stream of {@code node}, for looking ahead in its log. */
    NodeStream stream(NodeId node) {
        return streams.get(node);
    }

    @Override
    public boolean hasNext() {
        return !heads.isEmpty();
    }

    @Override
    public TraceEvent next() {
        NodeStream stream = heads.poll();
        if (stream == null) {
            throw new NoSuchElementException();
        }
        TraceEvent entry = stream.poll();
        if (stream.peek(0) != null) {
            heads.add(stream);
        }
        switch (entry.event()) {
            case Event.Send send -> sends.put(number(entry.node()), send.messageId(), entry.lamport(), number(send.to()));
            case Event.Receive receive -> checkReceive(entry, receive);
            default -> {
            }
        }
        return entry;
    }

    private int number(NodeId node) {
        Integer number = nodeNumbers.get(node);
        if (number == null) {
            number = nodeNumbers.size();
            nodeNumbers.put(node, number);
        }
        return number;
    }

    private void checkReceive(TraceEvent entry, Event.Receive receive) {
        if (receive.fromLamport() >= entry.lamport()) {
            throw new ReplayException(traceName + ": " + describe(receive) + " was received at clock " + entry.lamport()
                    + " but carries the sender's clock " + receive.fromLamport() + " (not smaller): " + entry);
        }
        NodeStream sender = streams.get(receive.from());
        if (sender == null) {
            return; // an unrecorded node, such as a client: nothing to check against
        }
        int slot = sends.find(number(receive.from()), receive.messageId());
        if (slot < 0 && receive.fromLamport() <= sends.forgottenUpToLamport()) {
            return; // the send may have been forgotten by the bounded memory of sends
        }
        if (slot < 0) {
            Optional<TraceEvent> later = findSend(sender, receive);
            throw new ReplayException(traceName + ": " + describe(receive) + " received by " + entry.node()
                    + " has no earlier send in the log of " + receive.from() + ": receive " + entry + "; "
                    + later.map(s -> "the send " + s + " has clock " + s.lamport() + ", not smaller than the receive's "
                    + entry.lamport()).orElse("the log of " + receive.from() + " has no send with that message id"));
        }
        if (sends.lamport(slot) != receive.fromLamport()) {
            throw new ReplayException(traceName + ": " + describe(receive) + " received by " + entry.node()
                    + " carries sender clock " + receive.fromLamport() + " but the recorded send has clock "
                    + sends.lamport(slot) + ": send " + findSend(sender, receive).map(TraceEvent::toString)
                    .orElse("?") + "; receive " + entry);
        }
        if (sends.receiver(slot) != number(entry.node())) {
            TraceEvent send = findSend(sender, receive).orElseThrow();
            throw new ReplayException(traceName + ": " + describe(receive) + " was received by " + entry.node()
                    + " but sent to " + ((Event.Send) send.event()).to() + ": send " + send + "; receive " + entry);
        }
    }

    /** The send of a received message in its sender's log, read again from the start: for error messages only. */
    private static Optional<TraceEvent> findSend(NodeStream sender, Event.Receive receive) {
        return sender.findFromStart(e -> e.event() instanceof Event.Send s && s.messageId() == receive.messageId());
    }

    private static String describe(Event.Receive receive) {
        return "message " + EventJson.messageId(receive.messageId()) + " from " + receive.from();
    }

    @Override
    public void close() {
        for (NodeStream stream : streams.values()) {
            stream.close();
        }
    }
}
