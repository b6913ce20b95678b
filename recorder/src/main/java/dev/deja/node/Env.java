package dev.deja.node;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Everything a {@link Node} may do or observe. Valid only inside a handler call, on the handler's thread.
 *
 * <p>Every observation (clock, randomness, storage reads) is an input the recorder logs and the replayer
 * feeds back; every action (send, timer) is re-executed on replay and compared with the recording.
 */
public interface Env {
    /** This node's id. */
    NodeId self();

    /** The other nodes of the cluster, in a stable order (excluding {@link #self()}). */
    List<NodeId> peers();

    /** This node's configuration arguments from the cluster file, e.g. {@code bug=latest-response}. */
    Map<String, String> args();

    /** The incarnation number: 1 for the first start, incremented by every restart. */
    int incarnation();

    /**
     * Sends a message (a Java record serializable by Jackson) to another node, or to itself. Delivery is
     * asynchronous and not guaranteed: messages can be lost, delayed and reordered.
     */
    void send(NodeId to, Object message);

    /** Sets a one-shot timer that fires after {@code delay} with the given tag (a string or a record). */
    TimerId setTimer(Duration delay, Object tag);

    /** Cancels a timer; cancelling one that already fired or was cancelled does nothing. */
    void cancelTimer(TimerId timer);

    /** The node's wall clock in milliseconds since the epoch (recorded). */
    long nowMillis();

    /** A random generator whose every draw is recorded. */
    RandomGenerator random();

    /** This node's small durable key-to-bytes store. */
    Storage storage();

    /** Writes a line for humans to the node's log; not an input, so replay prints it again. */
    void log(String line);
}
