package dev.deja.sim.internal;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.sim.ChoicePoint;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The simulator's twin of the live platform: one simulated process, with its node object, its runner, its
 * recorder (a real {@link NodeLogWriter} when the run writes a trace) and its storage, with what survives a
 * crash. Virtual time, the network and every random draw come from the {@link SimulationEngine} that owns it.
 *
 * <p>Confined to the engine's thread.
 */
final class SimulatedPlatform implements Platform {
    private final SimulationEngine engine;
    final NodeId id;
    private final String className;
    private final Map<String, String> args;
    final boolean recorded;
    private final List<NodeId> peers;
    /** What survives a crash: the storage as of the last sync. */
    private final Map<String, byte[]> durable = new HashMap<>();
    /**
     * Writes since the last sync, over {@link #durable} ({@link #DELETED} for a deletion): a sync applies only them,
     * rather than copying the whole storage, and a crash drops them.
     */
    private final Map<String, byte[]> unsynced = new HashMap<>();
    private static final byte[] DELETED = new byte[0];
    final Set<Long> liveTimers = new HashSet<>();
    private final EntrySink sink = new EntrySink();
    long skewMillis;
    boolean up;
    int incarnation;
    Node instance;
    NodeRunner runner;
    private NodeLogWriter writer;
    /** Without a trace: the seq and Lamport clock the next incarnation continues from, and whether this one crashed. */
    private long nextSeq;
    private long lastLamport;
    private boolean crashed;
    /** How many entries of a recording this node's log begins with (see {@link #adopt}). */
    long copiedEntries;

    SimulatedPlatform(SimulationEngine engine, NodeId id, String className, Map<String, String> args, boolean recorded,
                      List<NodeId> peers) {
        this.engine = engine;
        this.id = id;
        this.className = className;
        this.args = args;
        this.recorded = recorded;
        this.peers = peers;
    }

    void boot() {
        instance = instantiate(className);
        long initialLamport = 0;
        long firstSeq = 0;
        int crashedIncarnation = 0;
        if (recorded && engine.traceDirectory != null) {
            writer = NodeLogWriter.open(engine.traceDirectory, id, instance.getClass().getName(), codeVersion(instance),
                    incarnation + 1, engine.nowMillis, engine.virtualClock);
            incarnation = writer.incarnation();
            initialLamport = writer.lastLamportBefore();
            firstSeq = writer.nextSeq();
            crashedIncarnation = writer.previousIncarnationCrashed() ? incarnation - 1 : 0;
        } else {
            // What the writer would have read back from the previous incarnation's log.
            incarnation++;
            initialLamport = lastLamport;
            firstSeq = nextSeq;
            crashedIncarnation = crashed ? incarnation - 1 : 0;
            crashed = false;
        }
        runner = new NodeRunner(instance, new NodeRunner.Setup(id, peers, args, incarnation, initialLamport,
                firstSeq, crashedIncarnation), this, engine.codec, recorded && engine.buildsEntries ? sink : null);
        up = true;
        runner.start();
    }

    /** The sink the runner records to (counting entries, and writing them when the run writes a trace). */
    TraceSink sink() {
        return sink;
    }

    /**
     * Takes over a node that replay rebuilt (see {@link HandOver}): its runner and object go on here, with the storage,
     * incarnation, seq and Lamport clock the replay reached. With a trace directory, the node's recorded entries up to
     * there are copied into the new trace first, so that the trace written holds the recorded prefix and the run.
     */
    void adopt(NodeRunner replayed, HandOver.Twin twin, List<TraceEvent> recorded) {
        runner = replayed;
        instance = replayed.node();
        incarnation = twin.incarnation;
        nextSeq = twin.nextSeq;
        lastLamport = twin.lastLamport;
        durable.putAll(twin.durable);
        for (Map.Entry<String, byte[]> entry : twin.current.entrySet()) {
            unsynced.put(entry.getKey(), entry.getValue());
        }
        for (String key : durable.keySet()) {
            if (!twin.current.containsKey(key)) {
                unsynced.put(key, DELETED); // deleted and not yet synced
            }
        }
        up = true;
        if (recorded != null && engine.traceDirectory != null) {
            writer = copyPrefix(recorded, twin.nextSeq);
        }
    }

    private NodeLogWriter copyPrefix(List<TraceEvent> log, long endSeq) {
        NodeLogWriter open = null;
        {
            for (TraceEvent entry : log) {
                if (entry.seq() >= endSeq) {
                    break;
                }
                if (open == null || open.incarnation() != entry.incarnation()) {
                    if (open != null) {
                        // The recording's next incarnation starts with a crash entry when this one was killed.
                        if (entry.event() instanceof dev.deja.trace.Event.Crash) {
                            open.abandon();
                        } else {
                            open.close(entry.atMillis());
                        }
                    }
                    open = NodeLogWriter.open(engine.traceDirectory, id, className, codeVersion(instance),
                            entry.incarnation(), entry.atMillis(), engine.virtualClock);
                    if (open.incarnation() != entry.incarnation() || open.nextSeq() != entry.seq()) {
                        throw new IllegalStateException("cannot copy the recorded log of node " + id
                                + " into the new trace: it begins at incarnation " + entry.incarnation() + ", seq "
                                + entry.seq() + " (a log that continues an earlier recording)");
                    }
                }
                open.append(entry);
                copiedEntries++;
            }
        }
        return open;
    }

    /** The entry that began the last handler call (its receive, timer, start or crash), or null for the driver. */
    TraceEvent lastHandlerEntry() {
        return recorded && engine.buildsEntries ? sink.first : null;
    }

    /** How many entries this node recorded (or would have), in all its incarnations so far. */
    long entriesRecorded() {
        return runner != null ? runner.nextSeq() : nextSeq;
    }

    void crash() {
        if (!engine.buildsEntries) {
            // No sink kept these: the runner has them.
            nextSeq = runner.nextSeq();
            lastLamport = runner.lamport();
        }
        up = false;
        crashed = true;
        liveTimers.clear();
        unsynced.clear(); // writes not yet synced are lost
        if (writer != null) {
            writer.abandon();
            writer = null;
        }
        runner = null;
        instance = null;
    }

    void finish() {
        if (up && writer != null) {
            writer.close(engine.nowMillis);
            writer = null;
        }
    }

    @Override
    public long currentTimeMillis() {
        return engine.nowMillis + skewMillis;
    }

    @Override
    public long nextRandomLong() {
        return engine.choices.bits(new ChoicePoint.RandomDraw(id));
    }

    @Override
    public Optional<byte[]> storageRead(String key) {
        byte[] value = unsynced.get(key);
        if (value == null) {
            value = durable.get(key);
        }
        return value == null || value == DELETED ? Optional.empty() : Optional.of(value.clone());
    }

    @Override
    public void storageWrite(String key, byte[] value) {
        if (value == null) {
            unsynced.put(key, DELETED);
        } else {
            unsynced.put(key, value.clone());
        }
    }

    @Override
    public void storageSync() {
        for (Map.Entry<String, byte[]> write : unsynced.entrySet()) {
            if (write.getValue() == DELETED) {
                durable.remove(write.getKey());
            } else {
                durable.put(write.getKey(), write.getValue());
            }
        }
        unsynced.clear();
    }

    @Override
    public boolean takesSharedMessages() {
        return !engine.buildsEntries;
    }

    @Override
    public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
        send(to, senderLamport, messageId, message, null);
    }

    @Override
    public void transmitShared(NodeId to, long senderLamport, long messageId, Object message) {
        send(to, senderLamport, messageId, null, message);
    }

    /** One of {@code encoded} and {@code shared} is null. */
    private void send(NodeId to, long senderLamport, long messageId, Payload encoded, Object shared) {
        if (!engine.byId.containsKey(to)) {
            return; // a client that does not run in a continued recording: nobody receives it
        }
        if (engine.partitioned(id, to)
                || engine.choices.chance(new ChoicePoint.Drop(id, to), engine.settings.dropProbability())) {
            engine.dropped++;
            return;
        }
        int copies = engine.choices.chance(new ChoicePoint.Duplicate(id, to), engine.settings.duplicateProbability()) ? 2 : 1;
        engine.duplicated += copies - 1;
        for (int copy = 0; copy < copies; copy++) {
            long delay = engine.choices.between(new ChoicePoint.Delay(id, to), engine.settings.minDelayMillis(),
                    engine.settings.maxDelayMillis());
            SimulationEngine.Pending delivery = engine.newPending(SimulationEngine.Kind.DELIVERY, engine.nowMillis + delay, to);
            delivery.from = id;
            delivery.senderLamport = senderLamport;
            delivery.id = messageId;
            delivery.copy = copy;
            delivery.message = encoded;
            delivery.shared = shared;
            engine.schedule(delivery);
        }
    }

    @Override
    public boolean knows(NodeId node) {
        return engine.addressable != null ? engine.addressable.contains(node) : engine.byId.containsKey(node);
    }

    @Override
    public void scheduleTimer(TimerId timer, Duration delay) {
        liveTimers.add(timer.value());
        SimulationEngine.Pending due = engine.newPending(SimulationEngine.Kind.TIMER,
                engine.nowMillis + Math.max(0, delay.toMillis()), id);
        due.incarnation = incarnation;
        due.id = timer.value();
        engine.schedule(due);
    }

    @Override
    public void cancelTimer(TimerId timer) {
        liveTimers.remove(timer.value());
    }

    @Override
    public void log(NodeId node, int incarnationNumber, String line) {
        engine.options.nodeOutput().accept(String.format("%8d ms %s#%d: %s", engine.nowMillis - SimulationEngine.EPOCH_MILLIS,
                node, incarnationNumber, line));
    }

    private Node instantiate(String name) {
        try {
            Class<?> type = Class.forName(name, true, engine.options.classLoader());
            if (!Node.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException("node " + id + ": class " + name + " does not implement "
                        + Node.class.getName());
            }
            return (Node) type.getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("node " + id + ": class " + name + " is not on the classpath", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("node " + id + ": cannot instantiate " + name
                    + " (it needs a public no-argument constructor): " + e, e);
        }
    }

    /** The jar's version with digests of the class and its jar, so that a replay can tell other code. */
    private static String codeVersion(Node node) {
        return dev.deja.trace.CodeFingerprint.of(node.getClass());
    }

    /**
     * Counts entries, keeps the first of each handler call and the last seq and clock, and passes every entry to the
     * writer when the run writes a trace.
     */
    private final class EntrySink implements TraceSink {
        TraceEvent first;
        private boolean inHandler;

        @Override
        public void append(TraceEvent event) {
            engine.entries++;
            if (inHandler) {
                first = event;
                inHandler = false;
            }
            nextSeq = event.seq() + 1;
            lastLamport = event.lamport();
            if (writer != null) {
                writer.append(event);
                if (engine.traceOrder != null) {
                    engine.traceOrder.entry(id);
                }
            }
        }

        @Override
        public void beginHandler() {
            inHandler = true;
            if (writer != null) {
                writer.beginHandler();
            }
        }

        @Override
        public void endHandler() {
            inHandler = false;
            if (writer != null) {
                writer.endHandler();
            }
        }
    }
}
