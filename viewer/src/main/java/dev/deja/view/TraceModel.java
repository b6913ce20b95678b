package dev.deja.view;

import dev.deja.node.NodeId;
import dev.deja.trace.EventKind;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.view.internal.TraceModelLoader;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * A whole trace in memory, in the merged happens-before order the replayer uses, laid out for drawing: one
 * lane per recorded node, every entry at its position, message arcs from send to receive, incarnation
 * segments.
 *
 * <p>Positions are those of {@code deja replay}, {@code deja check} and {@code deja dump}: 0-based indexes
 * of entries in the merged order (every entry, not only handler calls). Entries are held in primitive
 * columns, not one object each: about 70 bytes an entry plus message contents (a 1.1-million-entry trace of
 * small messages took 120 to 150 MB of heap), and reading is bounded by decoding and merging the node logs.
 *
 * <p>Arcs: a send and each receive of its message form an arc (a message delivered twice gives two arcs);
 * a send whose message no recorded node received (lost, or in flight when the run ended) is an arc with no
 * receive; a message to or from an unrecorded node (a workload client) is an arc with no receive or no send.
 * Arcs are numbered in order of their first end.
 *
 * <p>Immutable after loading; safe to read from any thread.
 */
public interface TraceModel {
    /** Reads the trace at {@code directory} (merging and validating its node logs as the replayer does). */
    static TraceModel open(Path directory) {
        return open(Trace.open(directory));
    }

    /** Reads an opened trace. */
    static TraceModel open(Trace trace) {
        return TraceModelLoader.load(trace, read -> { });
    }

    /**
     * Reads an opened trace, telling {@code entriesRead} how many entries are read so far (after every entry, on
     * the calling thread; the total is the sum of the node logs' entry counts).
     */
    static TraceModel open(Trace trace, LongConsumer entriesRead) {
        return TraceModelLoader.load(trace, entriesRead);
    }

    /** Names the trace in messages (its directory). */
    String name();

    /** How many entries the trace holds. */
    int size();

    /** The recorded nodes, one lane each, in natural order ({@code n2} before {@code n10}); lane {@code i} is {@code nodes().get(i)}. */
    List<NodeId> nodes();

    /** The lane of {@code node}, or -1 if it was not recorded. */
    int lane(NodeId node);

    /** The lane of the entry at {@code position}. */
    int laneOf(int position);

    /** The entry's index on its lane (its seq: 0, 1, 2, ... along the node's log). */
    int ordinal(int position);

    /** The position of the entry with index {@code ordinal} on {@code lane}. */
    int positionOf(int lane, int ordinal);

    /** How many entries {@code lane} has. */
    int laneSize(int lane);

    int incarnation(int position);

    long seq(int position);

    long lamport(int position);

    /** The node's own clock when the entry was recorded. */
    long atMillis(int position);

    EventKind type(int position);

    /** For a send or receive, the index of its message type in {@link #messageTypes()}; otherwise -1. */
    int messageType(int position);

    /** Every message class sent or received, sorted by simple name then full name: the colour order. */
    List<String> messageTypes();

    /**
     * For a send, the receiver; for a receive, the sender (either may be an unrecorded node such as a
     * client); otherwise empty.
     */
    Optional<NodeId> peer(int position);

    /** The lane of {@link #peer}, or -1 when there is none or it was not recorded. */
    int peerLane(int position);

    /**
     * The other end of a message: for a receive, its send; for a send, its (first) receive; -1 when there is
     * none (an unrecorded sender, a message never received) and for every other entry.
     */
    int counterpart(int position);

    /** How many arcs there are. */
    int arcCount();

    /** The send of arc {@code arc}, or -1 when the sender was not recorded. */
    int arcSend(int arc);

    /** The receive of arc {@code arc}, or -1 when no recorded node received the message. */
    int arcReceive(int arc);

    /** The incarnations of {@code lane} in order. */
    List<Segment> segments(int lane);

    /** The recorded entry at {@code position}, rebuilt from the columns. */
    TraceEvent entry(int position);

    /**
     * The entry's content as compact JSON: a receive's message, a timer's tag, a storage read's key and a
     * start's class and arguments; for a send, its receiver's copy of the message if it was received;
     * otherwise empty.
     */
    String content(int position);

    /** The entry's next on its lane, or -1 at the end of the lane. */
    default int nextOnLane(int position) {
        int ordinal = ordinal(position) + 1;
        int lane = laneOf(position);
        return ordinal < laneSize(lane) ? positionOf(lane, ordinal) : -1;
    }

    /** The entry's previous on its lane, or -1 at its start. */
    default int previousOnLane(int position) {
        int ordinal = ordinal(position);
        return ordinal > 0 ? positionOf(laneOf(position), ordinal - 1) : -1;
    }

    /** The happens-before cone of the entry at {@code position}. */
    Cone cone(int position);

    /** The positions of the entries {@code filter} lets through. */
    BitSet matching(EventFilter filter);
}
