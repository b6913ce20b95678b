package dev.deja.node;

/**
 * A node of a distributed system: a deterministic, event-driven state machine.
 *
 * <p>The runtime calls the handlers one at a time, never concurrently, and each handler runs to completion
 * (atomically, as far as the rest of the system can tell). A handler reaches the outside world only through
 * its {@link Env}: it never opens sockets, starts threads, reads {@code System.currentTimeMillis()} or
 * creates its own {@code Random}. That discipline is what lets the same class run under the loopback
 * deployment, the replayer and the simulator unchanged, and what lets the recorder capture every
 * nondeterministic input.
 *
 * <p>Implementations need a public no-argument constructor. A restart after a crash is a new incarnation:
 * a fresh instance whose {@link #onStart(Env)} recovers from {@link Env#storage()}.
 */
public interface Node {
    /** Called once per incarnation, before any message or timer. */
    void onStart(Env env);

    /** Called for each message delivered to this node; {@code message} is a record of the sender's making. */
    void onMessage(Env env, NodeId from, Object message);

    /** Called when a timer set with {@link Env#setTimer} fires (never after it was cancelled). */
    default void onTimer(Env env, TimerId timer, Object tag) {
    }
}
