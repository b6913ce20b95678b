package dev.deja.sim;

import dev.deja.node.NodeId;
import java.util.List;
import java.util.Objects;

/**
 * A place where a simulated run could go more than one way. The simulator asks its {@link ChoiceSource} at
 * every one of them, so a run is exactly the sequence of answers: replaying the answers replays the run, and
 * a search strategy (random walk, bounded depth-first search, partial-order reduction) explores by answering
 * differently.
 */
public sealed interface ChoicePoint {
    /** What kind of pending event an enabled event is. */
    enum EventKind { DELIVERY, TIMER, RESTART }

    /**
     * A pending event a scheduling choice may pick, described well enough for a strategy to weigh it (kind), find
     * what it depends on (the node that handles it) and recognise it on another path that shares the prefix that
     * created it ({@link #key()}).
     *
     * @param kind        delivery, timer firing or restart
     * @param node        the node that handles it
     * @param from        for a delivery, the sender; otherwise {@code null}
     * @param id          for a delivery the message id, for a timer the timer id, for a restart the incarnation
     *                    that crashed
     * @param copy        0, or 1 for the second copy of a duplicated message
     * @param messageType for a delivery the message's simple type, for a timer its tag's; otherwise empty
     * @param dueMillis   when it is due, in virtual milliseconds since the run began
     * @param causeStep   the step whose handler created it (sent the message, set the timer, crashed the node), or
     *                    -1 when it was created before the first step
     * @param contentHash a hash of the message's bytes (0 for timers and restarts), for state hashing
     */
    record Enabled(EventKind kind, NodeId node, NodeId from, long id, int copy, String messageType, long dueMillis,
                   long causeStep, int contentHash) {
        public Enabled {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(messageType, "messageType");
        }

        /** The same event on every path that created it the same way: kind, node, sender, id and copy. */
        public Key key() {
            return new Key(kind, node, from, id, copy);
        }

        /** A short human-readable form, e.g. {@code deliver n1->n3 Accept} or {@code timer n2 #4 Retry}. */
        public String describe() {
            return switch (kind) {
                case DELIVERY -> "deliver " + from + "->" + node + " " + messageType + (copy > 0 ? " (copy)" : "");
                case TIMER -> "timer " + node + " #" + id + " " + messageType;
                case RESTART -> "restart " + node;
            };
        }
    }

    /** The identity of an {@link Enabled} event across paths. */
    record Key(EventKind kind, NodeId node, NodeId from, long id, int copy) {
    }

    /** Which of the {@code events} (at least two) that are enabled now happens first. */
    record NextEvent(long step, List<Enabled> events) implements ChoicePoint {
        public NextEvent {
            events = List.copyOf(events);
        }

        /** How many events are enabled. */
        public int enabled() {
            return events.size();
        }
    }

    /** Whether the network loses a message. */
    record Drop(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** Whether the network delivers a message twice. */
    record Duplicate(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** How long a message spends in the network, in milliseconds. */
    record Delay(NodeId from, NodeId to) implements ChoicePoint {
    }

    /** Whether some running node crashes after the current step (by the settings' crash rate). */
    record Crash(long step) implements ChoicePoint {
    }

    /** Which of {@code candidates} running nodes crashes. */
    record CrashVictim(int candidates) implements ChoicePoint {
    }

    /**
     * Whether {@code node}, whose handler just ran (step {@code step}, its state possibly changed, its storage
     * writes possibly not yet synced), crashes now. Asked only when exploration asks for crash points.
     */
    record CrashAfter(long step, NodeId node) implements ChoicePoint {
    }

    /**
     * Whether {@code node}, whose handler just ran, is cut off from every other node now, until the partition
     * heals. Asked only when exploration asks for partition points.
     */
    record Isolate(long step, NodeId node) implements ChoicePoint {
    }

    /** A node's random draw ({@code Env.random()}). */
    record RandomDraw(NodeId node) implements ChoicePoint {
    }

    /** A node's fixed clock offset from virtual time, chosen once when the run starts. */
    record ClockSkew(NodeId node) implements ChoicePoint {
    }
}
