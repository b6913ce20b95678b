package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.EventJson;
import dev.deja.trace.TraceOrder;
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
 * Merges per-node logs into one total order: the order a simulator ran them in when the trace has one
 * ({@link TraceOrder}, followed run by run), else by (Lamport clock, node id, seq), a k-way merge holding one head
 * entry per node. Either way memory does not grow with the trace.
 *
 * <p>Since a receive's clock exceeds its send's, the Lamport order puts every send before its receive, and with the
 * per-node rules checked by {@link NodeStream} it is a linearization of happens-before. A simulator's order is
 * checked to be one as it is followed: it must name recorded nodes only, give no node more entries than its log
 * holds, cover every log to its end, and put every recorded send before its receive. Validation, failing
 * with {@link ReplayException} naming both entries (and the order file's line): each receive's carried sender clock
 * is below the receive's, and when the sender was recorded, the sender's log has a send with that message id and
 * exactly that clock. Sends are remembered in a bounded table (oldest forgotten); a receive whose send might have
 * been forgotten is not checked against the sender's content. Messages from unrecorded nodes (clients) are legal.
 * Runs of nodes that are not merged (a replay of some nodes only) are skipped. Not thread-safe.
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
    /** The simulator's order being followed, or null for the Lamport merge. */
    private final TraceOrder.Cursor order;
    /** The stream of the order's current run and how many of its entries are still to take. */
    private NodeStream run;
    private long runRemaining;
    private boolean orderEnded;

    /**
     * @param traceName       names the trace in error messages
     * @param nodeStreams     one stream per recorded node
     * @param rememberedSends how many recent sends to keep for checking receives against
     */
    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams, int rememberedSends) {
        this(traceName, nodeStreams, null, rememberedSends);
    }

    /**
     * @param traceName       names the trace in error messages
     * @param nodeStreams     one stream per merged node
     * @param order           the simulator's order to follow (closed with the merge), or null to merge by Lamport clock
     * @param rememberedSends how many recent sends to keep for checking receives against
     */
    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams, TraceOrder.Cursor order,
                              int rememberedSends) {
        this.traceName = traceName;
        this.order = order;
        this.sends = new RememberedSends(rememberedSends);
        for (NodeStream stream : nodeStreams) {
            if (streams.put(stream.node(), stream) != null) {
                throw new IllegalArgumentException("two logs of node " + stream.node());
            }
            if (order == null && stream.peek(0) != null) {
                heads.add(stream);
            }
        }
    }

    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams) {
        this(traceName, nodeStreams, DEFAULT_REMEMBERED_SENDS);
    }

    /** Merges in the simulator's {@code order} (null: by Lamport clock), closing it with the merge. */
    public HappensBeforeMerge(String traceName, List<NodeStream> nodeStreams, TraceOrder.Cursor order) {
        this(traceName, nodeStreams, order, DEFAULT_REMEMBERED_SENDS);
    }

    /** A cursor over {@code trace}'s simulator order, naming any of its recorded nodes, or null if it has none. */
    public static TraceOrder.Cursor orderOf(dev.deja.trace.Trace trace) {
        return trace.order().map(o -> o.cursor(trace.nodes().stream().map(dev.deja.trace.NodeLog::node).toList()))
                .orElse(null);
    }

    /** The stream of {@code node}, for looking ahead in its log. */
    NodeStream stream(NodeId node) {
        return streams.get(node);
    }

    @Override
    public boolean hasNext() {
        if (order == null) {
            return !heads.isEmpty();
        }
        advanceOrder();
        return run != null;
    }

    @Override
    public TraceEvent next() {
        TraceEvent entry;
        if (order == null) {
            NodeStream stream = heads.poll();
            if (stream == null) {
                throw new NoSuchElementException();
            }
            entry = stream.poll();
            if (stream.peek(0) != null) {
                heads.add(stream);
            }
        } else {
            entry = nextInOrder();
        }
        switch (entry.event()) {
            case Event.Send send -> sends.put(number(entry.node()), send.messageId(), entry.lamport(), number(send.to()));
            case Event.Receive receive -> checkReceive(entry, receive);
            default -> {
            }
        }
        return entry;
    }

    /** Moves to a run with entries still to take, or sets {@link #run} to null at the end of the order. */
    private void advanceOrder() {
        while (runRemaining == 0 && !orderEnded) {
            if (!order.next()) {
                orderEnded = true;
                run = null;
                requireLogsCovered();
                return;
            }
            run = streams.get(order.node());
            runRemaining = run == null ? 0 : order.count(); // a node not merged: its runs are skipped
        }
        if (orderEnded) {
            run = null;
        }
    }

    private TraceEvent nextInOrder() {
        advanceOrder();
        if (run == null) {
            throw new NoSuchElementException();
        }
        TraceEvent entry = run.poll();
        if (entry == null) {
            throw new ReplayException(order.where() + ": the order gives node " + run.node() + " " + runRemaining
                    + " more entries, but its log ends after " + lastTakenDescription(run) + " (" + traceName + ")");
        }
        runRemaining--;
        return entry;
    }

    private static String lastTakenDescription(NodeStream stream) {
        return stream.lastTakenLamport() < 0 ? "no entry" : "the entry at clock " + stream.lastTakenLamport();
    }

    /** At the end of the order: every merged log must have been taken to its end. */
    private void requireLogsCovered() {
        for (NodeStream stream : new java.util.TreeMap<>(streams).values()) {
            TraceEvent left = stream.peek(0);
            if (left != null) {
                throw new ReplayException(order.where() + ": the order ends, but the log of node " + stream.node()
                        + " holds more entries, from " + left + " (" + traceName + ")");
            }
        }
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
        if (order != null && receive.fromLamport() > sender.lastTakenLamport()) {
            Optional<TraceEvent> send = findSend(sender, receive);
            throw new ReplayException(order.where() + ": the order puts the receive of " + describe(receive)
                    + " by " + entry.node() + " before its send, which happens before it: receive " + entry + "; "
                    + send.map(s -> "send " + s).orElse("the log of " + receive.from()
                    + " has no send with that message id") + " (" + traceName + ")");
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
        if (order != null) {
            order.close();
        }
    }
}
