package dev.deja.runtime;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Runs one incarnation of a {@link Node}: calls its handlers, gives it an {@link Env} backed by a
 * {@link Platform}, keeps its Lamport clock and records every nondeterministic input to a {@link TraceSink}.
 * The same runner serves the loopback deployment and the simulator, which is why both write the same trace.
 *
 * <p>Each recorded entry is an event in Lamport's sense and ticks the clock. Invariants asserted here:
 * <b>seq-contiguous</b> (entries are numbered 0, 1, 2, ... with no gap) and <b>lamport-increasing</b> (each
 * entry's clock is greater than the previous one's). Confined to the node's handler thread.
 */
public final class NodeRunner {
    /**
     * Who the node is in this incarnation.
     *
     * @param initialLamport     the Lamport clock to continue from (the last recorded one, or 0)
     * @param firstSeq           the seq of the first entry this incarnation records
     * @param crashedIncarnation the previous incarnation if it ended without a clean shutdown, else 0; a
     *                           {@link Event.Crash} is recorded for it before the {@link Event.Start}
     */
    public record Setup(NodeId self, List<NodeId> peers, Map<String, String> args, int incarnation,
                        long initialLamport, long firstSeq, int crashedIncarnation) {
        public Setup {
            Objects.requireNonNull(self, "self");
            peers = List.copyOf(peers);
            args = Map.copyOf(args);
            if (peers.contains(self)) {
                throw new IllegalArgumentException("a node is not its own peer: " + self);
            }
        }
    }

    private static final int MESSAGE_ID_COUNTER_BITS = 40;

    private final Node node;
    private final Setup setup;
    private final Platform platform;
    private final MessageCodec codec;
    private final TraceSink sink;
    private final LamportClock lamport;
    private final RecordingEnv env = new RecordingEnv();
    private final Map<Long, Object> pendingTimers = new HashMap<>();
    private long nextSeq;
    private long nextTimerId = 1;
    private long nextMessageCounter = 1;
    private long dispatchMillis;
    private boolean inHandler;
    private boolean started;

    /**
     * @param sink where recorded events go, or {@code null} when recording is off (the Lamport clock still
     *             runs, since frames carry it)
     */
    public NodeRunner(Node node, Setup setup, Platform platform, MessageCodec codec, TraceSink sink) {
        this.node = Objects.requireNonNull(node, "node");
        this.setup = setup;
        this.platform = Objects.requireNonNull(platform, "platform");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.sink = sink;
        this.lamport = new LamportClock(setup.initialLamport());
        this.nextSeq = setup.firstSeq();
    }

    public NodeId self() {
        return setup.self();
    }

    public int incarnation() {
        return setup.incarnation();
    }

    /** The live node object, for listeners that inspect state. */
    public Node node() {
        return node;
    }

    /** The Lamport clock of the last event. */
    public long lamport() {
        return lamport.current();
    }

    /** The seq the next recorded entry gets: the number of entries this node recorded, in all its incarnations. */
    public long nextSeq() {
        return nextSeq;
    }

    /** Records the crash of the previous incarnation (if any) and the start, then calls {@code onStart}. */
    public void start() {
        if (started) {
            throw new IllegalStateException(setup.self() + " already started");
        }
        started = true;
        dispatchMillis = platform.currentTimeMillis();
        beginHandler();
        try {
            if (setup.crashedIncarnation() > 0) {
                record(lamport.tick(), new Event.Crash(setup.crashedIncarnation()));
            }
            record(lamport.tick(), new Event.Start(node.getClass().getName(), setup.args(), setup.peers()));
            runHandler(() -> node.onStart(env));
        } finally {
            endHandler();
        }
    }

    /** Delivers a message: records it and calls {@code onMessage}. */
    public void deliver(NodeId from, long senderLamport, long messageId, Payload message) {
        requireStarted();
        Object decoded = codec.decode(message);
        dispatchMillis = platform.currentTimeMillis();
        beginHandler();
        try {
            record(lamport.receive(senderLamport), new Event.Receive(from, senderLamport, messageId, message));
            runHandler(() -> node.onMessage(env, from, decoded));
        } finally {
            endHandler();
        }
    }

    /**
     * Delivers a message handed over as a live object by a platform that {@linkplain Platform#takesSharedMessages
     * takes shared messages}: as {@link #deliver}, with nothing to decode. Only a runner that records nothing
     * accepts one, since a receive entry holds the message's bytes.
     */
    public void deliverShared(NodeId from, long senderLamport, long messageId, Object message) {
        requireStarted();
        if (sink != null) {
            throw new IllegalStateException(setup.self() + " records its entries and cannot take a shared message");
        }
        dispatchMillis = platform.currentTimeMillis();
        lamport.receive(senderLamport);
        nextSeq++;
        runHandler(() -> node.onMessage(env, from, message));
    }

    /** Fires a timer unless it was cancelled: records it and calls {@code onTimer}. */
    public void fireTimer(TimerId timer) {
        requireStarted();
        Object tag = pendingTimers.remove(timer.value());
        if (tag == null) {
            return; // cancelled, or fired already: not an event
        }
        dispatchMillis = platform.currentTimeMillis();
        beginHandler();
        try {
            long clock = lamport.tick();
            if (sink != null || !codec.shareable(tag)) {
                record(clock, new Event.TimerFired(timer.value(), codec.encode(tag)));
            } else {
                nextSeq++; // nothing records it, and the tag is known to encode
            }
            runHandler(() -> node.onTimer(env, timer, tag));
        } finally {
            endHandler();
        }
    }

    private void requireStarted() {
        if (!started) {
            throw new IllegalStateException(setup.self() + " has not started");
        }
    }

    private void runHandler(Runnable handler) {
        inHandler = true;
        try {
            handler.run();
        } catch (RuntimeException e) {
            // A failing handler is the node's bug, not the runtime's: report it and keep serving, as a
            // real event loop would. Replay reproduces the same exception at the same event.
            platform.log(setup.self(), setup.incarnation(), "handler threw " + e);
            StackTraceElement[] stack = e.getStackTrace();
            for (int i = 0; i < Math.min(stack.length, 8); i++) {
                platform.log(setup.self(), setup.incarnation(), "    at " + stack[i]);
            }
        } finally {
            inHandler = false;
        }
    }

    private void beginHandler() {
        if (sink != null) {
            sink.beginHandler();
        }
    }

    /**
     * Ends the sink's handler call: once its entries are written (now, or when the live node's group of calls is) the
     * messages it sent may leave the node; the live platform holds them until then.
     */
    private void endHandler() {
        if (sink != null) {
            sink.endHandler();
        }
    }

    private void record(long clock, Event event) {
        if (sink != null) {
            sink.append(new TraceEvent(setup.self(), setup.incarnation(), nextSeq, clock, dispatchMillis, event));
        }
        nextSeq++;
    }

    private void requireInHandler(String operation) {
        if (!inHandler) {
            throw new IllegalStateException("Env." + operation + " called outside a handler of " + setup.self()
                    + " (an Env is valid only during onStart, onMessage and onTimer, on the handler's thread)");
        }
    }

    /**
     * The {@link Env} handed to the node, whichever platform twin runs it (live, replay, simulated): it records every
     * observation and hands every effect to the {@link Platform}. The same object for every handler call.
     */
    private final class RecordingEnv implements Env {
        private final RecordedRandom random = new RecordedRandom();
        private final RecordedStorage storage = new RecordedStorage();

        @Override
        public NodeId self() {
            return setup.self();
        }

        @Override
        public List<NodeId> peers() {
            return setup.peers();
        }

        @Override
        public Map<String, String> args() {
            return setup.args();
        }

        @Override
        public int incarnation() {
            return setup.incarnation();
        }

        @Override
        public void send(NodeId to, Object message) {
            requireInHandler("send");
            Objects.requireNonNull(to, "to");
            if (!to.equals(setup.self()) && !platform.knows(to)) {
                throw new IllegalArgumentException(setup.self() + " cannot send to unknown node " + to);
            }
            if (sink == null && platform.takesSharedMessages() && codec.shareable(message)) {
                // Nothing records the send and no node can change the message: no bytes, no digest, no copy.
                long messageId = ((long) setup.incarnation() << MESSAGE_ID_COUNTER_BITS) | nextMessageCounter++;
                long clock = lamport.tick();
                nextSeq++;
                platform.transmitShared(to, clock, messageId, message);
                return;
            }
            Payload payload = codec.encode(message);
            long messageId = ((long) setup.incarnation() << MESSAGE_ID_COUNTER_BITS) | nextMessageCounter++;
            long clock = lamport.tick();
            if (sink != null) {
                record(clock, new Event.Send(to, messageId, payload.type(), MessageCodec.digest(payload)));
            } else {
                nextSeq++;
            }
            platform.transmit(to, clock, messageId, payload);
        }

        @Override
        public TimerId setTimer(Duration delay, Object tag) {
            requireInHandler("setTimer");
            Objects.requireNonNull(tag, "a timer needs a tag");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("negative timer delay " + delay);
            }
            if (sink != null || !codec.shareable(tag)) {
                codec.encode(tag); // fail now, not when the timer fires, if the tag cannot be recorded
            }
            TimerId timer = new TimerId(nextTimerId++);
            pendingTimers.put(timer.value(), tag);
            platform.scheduleTimer(timer, delay);
            return timer;
        }

        @Override
        public void cancelTimer(TimerId timer) {
            requireInHandler("cancelTimer");
            if (pendingTimers.remove(timer.value()) != null) {
                platform.cancelTimer(timer);
            }
        }

        @Override
        public long nowMillis() {
            requireInHandler("nowMillis");
            long millis = platform.currentTimeMillis();
            record(lamport.tick(), new Event.ClockRead(millis));
            return millis;
        }

        @Override
        public RandomGenerator random() {
            return random;
        }

        @Override
        public Storage storage() {
            return storage;
        }

        @Override
        public void log(String line) {
            platform.log(setup.self(), setup.incarnation(), line);
        }
    }

    /** Every {@link RandomGenerator} method derives from {@link #nextLong()}, so recording it records all. */
    private final class RecordedRandom implements RandomGenerator {
        @Override
        public long nextLong() {
            requireInHandler("random()");
            long value = platform.nextRandomLong();
            record(lamport.tick(), new Event.RandomDraw(value));
            return value;
        }
    }

    private final class RecordedStorage implements Storage {
        @Override
        public Optional<byte[]> read(String key) {
            requireInHandler("storage().read");
            validateKey(key);
            Optional<byte[]> value = platform.storageRead(key);
            record(lamport.tick(), new Event.StorageRead(key, value.map(byte[]::clone).orElse(null)));
            return value;
        }

        @Override
        public void write(String key, byte[] value) {
            requireInHandler("storage().write");
            validateKey(key);
            platform.storageWrite(key, value == null ? null : value.clone());
        }

        @Override
        public void sync() {
            requireInHandler("storage().sync");
            platform.storageSync();
        }

        private static void validateKey(String key) {
            if (key == null || key.isEmpty() || key.length() > 200) {
                throw new IllegalArgumentException("storage keys are 1-200 characters, got " + key);
            }
        }
    }
}
