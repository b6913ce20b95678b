package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.NodeLog;
import dev.deja.trace.NodeManifest;
import dev.deja.trace.TraceEvent;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One node's log as a forward stream with a small look-ahead, validating the per-node rules as it reads:
 * seq starts at 0 and is contiguous, the Lamport clock strictly increases, and every entry belongs to the node.
 *
 * <p>The look-ahead holds only what was peeked and not yet taken, which during replay is one handler's
 * entries, so memory does not grow with the log. Not thread-safe.
 */
public final class NodeStream implements AutoCloseable {
    /** Entries in log order that can be closed (a {@link NodeLog.Cursor}, or a list in tests). */
    interface Source extends Iterator<TraceEvent>, AutoCloseable {
        @Override
        void close();

        /** Adapts an iterator and the action that releases it. */
        static Source of(Iterator<TraceEvent> entries, Runnable onClose) {
            return new Source() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public TraceEvent next() {
                    return entries.next();
                }

                @Override
                public void close() {
                    onClose.run();
                }
            };
        }
    }

    private final NodeId node;
    private final String origin;
    private final Supplier<Source> opener;
    private final boolean lastIncarnationCompleted;
    private final ArrayDeque<TraceEvent> lookahead = new ArrayDeque<>();
    private Source source;
    private TraceEvent lastRead;
    /** The clock of the last entry taken ({@link #poll}), or -1. */
    private long lastTakenLamport = -1;

    NodeStream(NodeId node, String origin, Supplier<Source> opener, boolean lastIncarnationCompleted) {
        this.node = node;
        this.origin = origin;
        this.opener = opener;
        this.lastIncarnationCompleted = lastIncarnationCompleted;
    }

    /** A stream over a recorded node log. */
    public static NodeStream of(NodeLog log) {
        List<NodeManifest.Incarnation> incarnations = log.manifest().incarnations();
        return new NodeStream(log.node(), log.directory().toString(), () -> {
            NodeLog.Cursor cursor = log.cursor();
            return Source.of(cursor, cursor::close);
        }, incarnations.getLast().completed());
    }

    /** A stream over entries held in memory (tests). */
    static NodeStream of(NodeId node, List<TraceEvent> entries, boolean lastIncarnationCompleted) {
        return of(node, "memory:" + node, entries, lastIncarnationCompleted);
    }

    /** A stream over a node log read into memory; {@code origin} names where it was read from, for error messages. */
    public static NodeStream of(NodeId node, String origin, List<TraceEvent> entries, boolean lastIncarnationCompleted) {
        return new NodeStream(node, origin, () -> Source.of(entries.iterator(), () -> { }), lastIncarnationCompleted);
    }

    NodeId node() {
        return node;
    }

    /** Where the log lies, for error messages. */
    String origin() {
        return origin;
    }

    /** Whether the node's last incarnation stopped cleanly (else the log may end in the middle of a handler). */
    boolean lastIncarnationCompleted() {
        return lastIncarnationCompleted;
    }

    /** The entry {@code offset} places after the next one to take (0: the next one), or null past the end. */
    TraceEvent peek(int offset) {
        while (lookahead.size() <= offset) {
            TraceEvent read = read();
            if (read == null) {
                return null;
            }
            lookahead.addLast(read);
        }
        if (offset == 0) {
            return lookahead.peekFirst();
        }
        int index = 0;
        for (TraceEvent event : lookahead) {
            if (index++ == offset) {
                return event;
            }
        }
        throw new AssertionError("unreachable");
    }

    /** Takes the next entry, or returns null at the end. */
    TraceEvent poll() {
        TraceEvent head = peek(0);
        if (head != null) {
            lookahead.removeFirst();
            lastTakenLamport = head.lamport();
        }
        return head;
    }

    /** The Lamport clock of the last entry taken, or -1 before the first. */
    long lastTakenLamport() {
        return lastTakenLamport;
    }

    private TraceEvent read() {
        if (source == null) {
            source = opener.get();
        }
        if (!source.hasNext()) {
            return null;
        }
        TraceEvent event = source.next();
        if (!event.node().equals(node)) {
            throw new ReplayException(origin + ": the log of node " + node + " holds an entry of node "
                    + event.node() + ": " + event);
        }
        long expectedSeq = lastRead == null ? 0 : lastRead.seq() + 1;
        if (event.seq() != expectedSeq) {
            throw new ReplayException(origin + ": node " + node + ": seq not contiguous: "
                    + (lastRead == null ? "the log starts with " + event + " instead of seq 0"
                    : lastRead + " is followed by " + event + " (expected seq " + expectedSeq + ")"));
        }
        if (lastRead != null && event.lamport() <= lastRead.lamport()) {
            throw new ReplayException(origin + ": node " + node + ": Lamport clock not strictly increasing: "
                    + lastRead + " is followed by " + event);
        }
        lastRead = event;
        return event;
    }

    /**
     * Reads the whole log again from the start, independently of this stream, for the first entry matching
     * {@code wanted}. Only for error reports: it costs a full read.
     */
    Optional<TraceEvent> findFromStart(Predicate<TraceEvent> wanted) {
        try (Source again = opener.get()) {
            while (again.hasNext()) {
                TraceEvent event = again.next();
                if (wanted.test(event)) {
                    return Optional.of(event);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        if (source != null) {
            source.close();
        }
    }
}
