package dev.deja.runtime;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.trace.Payload;
import java.time.Duration;
import java.util.Optional;

/**
 * Every source of nondeterminism and every effect a node can have, behind one interface: the live twin
 * talks TCP and reads the real clock; the simulator's twin uses virtual time and one seeded choice source.
 *
 * <p>All methods are called on the node's handler thread by {@link NodeRunner}. A platform that schedules
 * timers or receives messages hands them back by calling {@link NodeRunner#fireTimer} or
 * {@link NodeRunner#deliver} on that same thread.
 */
public interface Platform {
    /** The current wall-clock (or virtual) time in milliseconds since the epoch. */
    long currentTimeMillis();

    /** 64 fresh random bits. */
    long nextRandomLong();

    /** Reads {@code key} from the node's durable storage, including unsynced writes. */
    Optional<byte[]> storageRead(String key);

    /** Writes (or with {@code null}, deletes) {@code key}; durable only after {@link #storageSync()}. */
    void storageWrite(String key, byte[] value);

    /** Makes every storage write so far durable. */
    void storageSync();

    /**
     * Hands a message to the network. Called after the send was appended to the trace sink, which may hold a
     * handler call's entries until the call ends: a platform whose messages could leave the process sooner holds
     * them until the {@link NodeRunner} method that ran the handler returns, so that a message that reaches its
     * receiver always has a recorded send (output commit).
     */
    void transmit(NodeId to, long senderLamport, long messageId, Payload message);

    /**
     * Whether the runner may hand messages to {@link #transmitShared} as live objects, for values
     * {@link dev.deja.trace.MessageCodec#shareable} allows: only a platform that delivers them in this process
     * through {@link NodeRunner#deliverShared}, to runners that record nothing, says yes (the simulator's in-memory
     * runs).
     */
    default boolean takesSharedMessages() {
        return false;
    }

    /**
     * As {@link #transmit}, for a message that is not encoded: an immutable value handed to the receiver as it is.
     * Called only when {@link #takesSharedMessages()} is true.
     */
    default void transmitShared(NodeId to, long senderLamport, long messageId, Object message) {
        throw new UnsupportedOperationException("this platform takes only encoded messages");
    }

    /** Whether {@code node} is an address this platform can send to. */
    boolean knows(NodeId node);

    /** Arranges for {@link NodeRunner#fireTimer(TimerId)} to be called after {@code delay}. */
    void scheduleTimer(TimerId timer, Duration delay);

    /** Best effort: the runner ignores a cancelled timer that fires anyway. */
    void cancelTimer(TimerId timer);

    /** Writes a human-readable line to the node's log output. */
    void log(NodeId node, int incarnation, String line);
}
