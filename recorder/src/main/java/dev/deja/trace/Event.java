package dev.deja.trace;

import dev.deja.node.NodeId;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What happened at one recorded event of a node. Recorded facts are plain data: each kind is a record.
 *
 * <p>{@link Start}, {@link Receive} and {@link TimerFired} begin a handler call ("dispatch events"); the
 * observations and sends that follow them in the node's log, up to the next dispatch event, happened inside
 * that handler. {@link Crash} marks the end of an incarnation that was killed.
 */
public sealed interface Event {
    /** What kind of event this is: its code in the log, its name, whether it begins a handler call. */
    EventKind kind();

    /** The stable name used by {@code dump --json}: start, receive, send, timer, clock, random, storage-read, crash. */
    default String typeName() {
        return kind().traceName();
    }

    /** Whether this event begins a handler call. */
    default boolean isDispatch() {
        return kind().isDispatch();
    }

    /** An incarnation started: {@code onStart} was called. */
    record Start(String nodeClass, Map<String, String> args, List<NodeId> peers) implements Event {
        public Start {
            Objects.requireNonNull(nodeClass, "nodeClass");
            args = Map.copyOf(args);
            peers = List.copyOf(peers);
        }

        @Override
        public EventKind kind() {
            return EventKind.START;
        }
    }

    /**
     * A message was delivered: {@code onMessage} was called.
     *
     * @param fromLamport the sender's Lamport clock at the send, carried in the frame
     * @param messageId   the sender's id for the message, unique per sender
     */
    record Receive(NodeId from, long fromLamport, long messageId, Payload message) implements Event {
        public Receive {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public EventKind kind() {
            return EventKind.RECEIVE;
        }
    }

    /** A message was sent; only its digest is kept, since the receiver's log holds the content. */
    record Send(NodeId to, long messageId, String messageType, long digest) implements Event {
        public Send {
            Objects.requireNonNull(to, "to");
            Objects.requireNonNull(messageType, "messageType");
        }

        @Override
        public EventKind kind() {
            return EventKind.SEND;
        }
    }

    /** A timer fired: {@code onTimer} was called. */
    record TimerFired(long timerId, Payload tag) implements Event {
        public TimerFired {
            Objects.requireNonNull(tag, "tag");
        }

        @Override
        public EventKind kind() {
            return EventKind.TIMER;
        }
    }

    /** The node read its clock and saw {@code millis}. */
    record ClockRead(long millis) implements Event {
        @Override
        public EventKind kind() {
            return EventKind.CLOCK;
        }
    }

    /** The node drew 64 random bits (every {@code RandomGenerator} method is built on these draws). */
    record RandomDraw(long value) implements Event {
        @Override
        public EventKind kind() {
            return EventKind.RANDOM;
        }
    }

    /** The node read {@code key} from its storage and got {@code value}, or {@code null} if absent. */
    record StorageRead(String key, byte[] value) implements Event {
        public StorageRead {
            Objects.requireNonNull(key, "key");
        }

        @Override
        public EventKind kind() {
            return EventKind.STORAGE_READ;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof StorageRead that && key.equals(that.key) && Arrays.equals(value, that.value);
        }

        @Override
        public int hashCode() {
            return 31 * key.hashCode() + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "StorageRead[" + key + ", " + (value == null ? "absent" : HexFormat.of().formatHex(value)) + "]";
        }
    }

    /**
     * The incarnation {@code crashedIncarnation} ended without a clean shutdown (killed or crashed). Written
     * by the next incarnation when it starts, so it precedes that incarnation's {@link Start}.
     */
    record Crash(int crashedIncarnation) implements Event {
        @Override
        public EventKind kind() {
            return EventKind.CRASH;
        }
    }
}
