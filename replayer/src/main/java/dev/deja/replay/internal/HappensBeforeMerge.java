package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.EventJson;
import dev.deja.trace.TraceEvent;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
 * that clock. Sends are remembered in a bounded map (oldest evicted); a receive whose send might have been
 * evicted is not checked against the sender. Messages from unrecorded nodes (clients) are legal. Not
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

    private record SendKey(NodeId from, long messageId) {
        /** Mixed, because sequential message ids of nodes with similar names collide under the record's default hash. */
        @Override
        public int hashCode() {
            return from.hashCode() * 0x85EBCA6B ^ Long.hashCode(messageId * 0x9E3779B97F4A7C15L);
        }
    }

    private final String traceName;
    private final Map<NodeId, NodeStream> streams = new HashMap<>();
    private final PriorityQueue<NodeStream> heads = new PriorityQueue<>(
            (a, b) -> ORDER.compare(a.peek(0), b.peek(0)));
    private final LinkedHashMap<SendKey, TraceEvent> sends;
    private long evictedUpToLamport;

    /**
     * @param traceName       names the trace in error messages
     * @param nodeStreams     one stream per recorded node
     * @param rememberedSends how many recent sends to keep for checking receives against
     */
    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams, int rememberedSends) {
        this.traceName = traceName;
        this.sends = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SendKey, TraceEvent> eldest) {
                if (size() > rememberedSends) {
                    evictedUpToLamport = Math.max(evictedUpToLamport, eldest.getValue().lamport());
                    return true;
                }
                return false;
            }
        };
        for (NodeStream stream : nodeStreams) {
            if (streams.put(stream.node(), stream) != null) {
                throw new IllegalArgumentException("two logs of node " + stream.node());
            }
            if (stream.peek(0) != null) {
                heads.add(stream);
            }
        }
    }

    HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams) {
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
            case Event.Send send -> sends.put(new SendKey(entry.node(), send.messageId()), entry);
            case Event.Receive receive -> checkReceive(entry, receive);
            default -> {
            }
        }
        return entry;
    }

    private void checkReceive(TraceEvent entry, Event.Receive receive) {
        String message = "message " + EventJson.messageId(receive.messageId()) + " from " + receive.from();
        if (receive.fromLamport() >= entry.lamport()) {
            throw new ReplayException(traceName + ": " + message + " was received at clock " + entry.lamport()
                    + " but carries the sender's clock " + receive.fromLamport() + " (not smaller): " + entry);
        }
        NodeStream sender = streams.get(receive.from());
        if (sender == null) {
            return; // an unrecorded node, such as a client: nothing to check against
        }
        TraceEvent send = sends.get(new SendKey(receive.from(), receive.messageId()));
        if (send == null && receive.fromLamport() <= evictedUpToLamport) {
            return; // the send may have been evicted from the bounded map
        }
        if (send == null) {
            Optional<TraceEvent> later = sender.findFromStart(e -> e.event() instanceof Event.Send s
                    && s.messageId() == receive.messageId());
            throw new ReplayException(traceName + ": " + message + " received by " + entry.node()
                    + " has no earlier send in the log of " + receive.from() + ": receive " + entry + "; "
                    + later.map(s -> "the send " + s + " has clock " + s.lamport() + ", not smaller than the receive's "
                    + entry.lamport()).orElse("the log of " + receive.from() + " has no send with that message id"));
        }
        if (send.lamport() != receive.fromLamport()) {
            throw new ReplayException(traceName + ": " + message + " received by " + entry.node()
                    + " carries sender clock " + receive.fromLamport() + " but the recorded send has clock "
                    + send.lamport() + ": send " + send + "; receive " + entry);
        }
        Event.Send recorded = (Event.Send) send.event();
        if (!recorded.to().equals(entry.node())) {
            throw new ReplayException(traceName + ": " + message + " was received by " + entry.node()
                    + " but sent to " + recorded.to() + ": send " + send + "; receive " + entry);
        }
    }

    @Override
    public void close() {
        for (NodeStream stream : streams.values()) {
            stream.close();
        }
    }
}
