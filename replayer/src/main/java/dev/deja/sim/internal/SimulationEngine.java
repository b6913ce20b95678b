package dev.deja.sim.internal;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.runtime.WorkloadDriver;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.runtime.Partition;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Payload;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEncoding;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import dev.deja.trace.TraceSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One simulated run: a discrete-event loop over virtual time. Pending deliveries, timer firings and restarts
 * wait in one queue ordered by due time; events due at the same instant are ordered by the choice source.
 * Every node is driven through the same {@link NodeRunner} a deployment uses, recording through a real
 * {@link NodeLogWriter}, so the trace is a real trace.
 */
public final class SimulationEngine {
    /** Virtual time starts here (2023-11-14T22:13:20Z): fixed, so that a run's files never depend on today. */
    public static final long EPOCH_MILLIS = 1_700_000_000_000L;

    private final SimulationSettings settings;
    private final Path traceDirectory;
    private final Simulator.Options options;
    private final ChoiceSource choices;
    private final MessageCodec codec;
    private final InstantSource virtualClock = () -> Instant.ofEpochMilli(now());
    private final Map<NodeId, SimNode> nodes = new TreeMap<>();
    private final List<NodeId> clusterIds;
    private final PriorityQueue<Pending> queue = new PriorityQueue<>();
    private final List<TraceSummary.LauncherEvent> launcherEvents = new ArrayList<>();
    private long nowMillis = EPOCH_MILLIS;
    private long order;
    private long steps;
    private long entries;
    private long crashes;
    private long dropped;
    private long duplicated;

    public SimulationEngine(SimulationSettings settings, Path traceDirectory, Simulator.Options options) {
        this.settings = settings;
        this.traceDirectory = traceDirectory;
        this.options = options;
        this.choices = options.choices();
        this.codec = new MessageCodec(options.classLoader());
        this.clusterIds = settings.nodes().keySet().stream().sorted().toList();
    }

    private long now() {
        return nowMillis;
    }

    /** Runs to the end and writes {@code trace.json}. */
    public SimulationResult run() {
        long startNanos = System.nanoTime();
        requireEmptyOrAbsent(traceDirectory);
        for (NodeId id : clusterIds) {
            SimulationSettings.NodeSpec spec = settings.nodes().get(id);
            nodes.put(id, new SimNode(id, spec.className(), spec.args(), true, clusterIds.stream().filter(p -> !p.equals(id)).toList()));
        }
        settings.driver().ifPresent(d -> nodes.put(d.id(), new SimNode(d.id(), d.className(), Map.of(), false, clusterIds)));
        for (SimNode node : nodes.values()) {
            node.skewMillis = settings.clockSkewMillis() == 0 ? 0
                    : choices.between(new ChoicePoint.ClockSkew(node.id), -settings.clockSkewMillis(), settings.clockSkewMillis());
        }
        for (Partition partition : settings.partitions()) {
            launcherEvents.add(new TraceSummary.LauncherEvent(partition.startMillis(), "partition", "", partition.toString()));
            launcherEvents.add(new TraceSummary.LauncherEvent(partition.healMillis(), "heal", "", partition.toString()));
        }
        // Cluster nodes first, so that the driver's first messages find them running, as in a deployment.
        for (NodeId id : clusterIds) {
            nodes.get(id).boot();
        }
        settings.driver().ifPresent(d -> nodes.get(d.id()).boot());
        SimulationResult.Ending ending = loop();
        for (SimNode node : nodes.values()) {
            node.finish();
        }
        launcherEvents.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis()));
        try {
            Trace.writeSummary(traceDirectory, new TraceSummary(TraceEncoding.FORMAT_VERSION, "simulate", options.command(),
                    clusterIds.stream().map(NodeId::value).toList(), EPOCH_MILLIS, nowMillis, settings.describe(),
                    launcherEvents));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + traceDirectory.resolve(TraceSummary.FILE), e);
        }
        return new SimulationResult(steps, entries, nowMillis - EPOCH_MILLIS, crashes, dropped, duplicated, ending,
                Duration.ofNanos(System.nanoTime() - startNanos));
    }

    private SimulationResult.Ending loop() {
        List<Pending> due = new ArrayList<>();
        while (true) {
            if (steps >= settings.maxSteps()) {
                return SimulationResult.Ending.STEP_LIMIT;
            }
            Pending first = queue.peek();
            if (first == null) {
                return SimulationResult.Ending.QUIESCENT;
            }
            if (first.dueMillis - EPOCH_MILLIS > settings.maxVirtualMillis()) {
                nowMillis = EPOCH_MILLIS + settings.maxVirtualMillis();
                return SimulationResult.Ending.TIME_LIMIT;
            }
            due.clear();
            while (!queue.isEmpty() && queue.peek().dueMillis == first.dueMillis) {
                due.add(queue.poll());
            }
            int chosen = due.size() == 1 ? 0 : choices.pick(new ChoicePoint.NextEvent(steps, due.size()), due.size());
            for (int i = 0; i < due.size(); i++) {
                if (i != chosen) {
                    queue.add(due.get(i));
                }
            }
            Pending next = due.get(chosen);
            nowMillis = next.dueMillis;
            if (execute(next)) {
                steps++;
                maybeCrash();
                if (settings.stop() == SimulationSettings.Stop.WHEN_DRIVER_FINISHES && driverFinished()) {
                    return SimulationResult.Ending.DRIVER_FINISHED;
                }
            }
        }
    }

    /** Runs one pending event; returns whether a handler ran (a step). */
    private boolean execute(Pending next) {
        SimNode node = nodes.get(next.node);
        switch (next.kind) {
            case DELIVERY -> {
                if (!node.up) {
                    dropped++;
                    return false;
                }
                node.runner.deliver(next.from, next.senderLamport, next.messageId, next.message);
                return true;
            }
            case TIMER -> {
                if (!node.up || node.incarnation != next.incarnation || !node.liveTimers.remove(next.timer.value())) {
                    return false; // the timer died with its incarnation, or was cancelled
                }
                node.runner.fireTimer(next.timer);
                return true;
            }
            case RESTART -> {
                launcherEvents.add(new TraceSummary.LauncherEvent(nowMillis - EPOCH_MILLIS, "restart", node.id.value(),
                        "after " + settings.restartDelayMillis() + " ms down"));
                node.boot();
                return true;
            }
            default -> throw new IllegalStateException("unknown pending event " + next.kind);
        }
    }

    private void maybeCrash() {
        if (settings.crashRate() == 0 || !choices.chance(new ChoicePoint.Crash(steps), settings.crashRate())) {
            return;
        }
        List<SimNode> running = nodes.values().stream().filter(n -> n.recorded && n.up).toList();
        if (running.isEmpty()) {
            return;
        }
        SimNode victim = running.get(choices.pick(new ChoicePoint.CrashVictim(running.size()), running.size()));
        victim.crash();
        crashes++;
        launcherEvents.add(new TraceSummary.LauncherEvent(nowMillis - EPOCH_MILLIS, "crash", victim.id.value(),
                "between events"));
        schedule(new Pending(Kind.RESTART, nowMillis + settings.restartDelayMillis(), order++, victim.id));
    }

    private boolean driverFinished() {
        return settings.driver().map(d -> nodes.get(d.id()).instance instanceof WorkloadDriver driver && driver.finished())
                .orElse(false);
    }

    private void schedule(Pending pending) {
        queue.add(pending);
    }

    private boolean partitioned(NodeId from, NodeId to) {
        long sinceStart = nowMillis - EPOCH_MILLIS;
        for (Partition partition : settings.partitions()) {
            if (partition.separates(from, to, sinceStart)) {
                return true;
            }
        }
        return false;
    }

    private static void requireEmptyOrAbsent(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException(directory + " already holds files; a simulation writes a new trace");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + directory, e);
        }
    }

    private enum Kind { DELIVERY, TIMER, RESTART }

    /** Something due at a virtual instant; {@code order} breaks no ties by itself, it only keeps the queue stable. */
    private static final class Pending implements Comparable<Pending> {
        final Kind kind;
        final long dueMillis;
        final long order;
        final NodeId node;
        NodeId from;
        long senderLamport;
        long messageId;
        Payload message;
        int incarnation;
        TimerId timer;

        Pending(Kind kind, long dueMillis, long order, NodeId node) {
            this.kind = kind;
            this.dueMillis = dueMillis;
            this.order = order;
            this.node = node;
        }

        @Override
        public int compareTo(Pending other) {
            return dueMillis != other.dueMillis ? Long.compare(dueMillis, other.dueMillis) : Long.compare(order, other.order);
        }
    }

    /** One simulated process: its node object, its recorder, its storage (with what survives a crash). */
    /** Counts the entries a node's writer records. */
    private final class CountingSink implements TraceSink {
        private final NodeLogWriter writer;

        CountingSink(NodeLogWriter writer) {
            this.writer = writer;
        }

        @Override
        public void append(TraceEvent event) {
            entries++;
            writer.append(event);
        }

        @Override
        public void beginHandler() {
            writer.beginHandler();
        }

        @Override
        public void endHandler() {
            writer.endHandler();
        }
    }

    private final class SimNode implements Platform {
        final NodeId id;
        final String className;
        final Map<String, String> args;
        final boolean recorded;
        final List<NodeId> peers;
        final Map<String, byte[]> current = new HashMap<>();
        final Map<String, byte[]> durable = new HashMap<>();
        final java.util.Set<Long> liveTimers = new java.util.HashSet<>();
        long skewMillis;
        boolean up;
        int incarnation;
        Node instance;
        NodeRunner runner;
        NodeLogWriter writer;

        SimNode(NodeId id, String className, Map<String, String> args, boolean recorded, List<NodeId> peers) {
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
            int crashed = 0;
            if (recorded) {
                writer = NodeLogWriter.open(traceDirectory, id, instance.getClass().getName(), codeVersion(instance),
                        incarnation + 1, nowMillis, virtualClock);
                incarnation = writer.incarnation();
                initialLamport = writer.lastLamportBefore();
                firstSeq = writer.nextSeq();
                crashed = writer.previousIncarnationCrashed() ? incarnation - 1 : 0;
            } else {
                incarnation++;
            }
            runner = new NodeRunner(instance, new NodeRunner.Setup(id, peers, args, incarnation, initialLamport,
                    firstSeq, crashed), this, codec, writer == null ? null : new CountingSink(writer));
            up = true;
            runner.start();
        }

        void crash() {
            up = false;
            liveTimers.clear();
            current.clear();
            current.putAll(durable); // writes not yet synced are lost
            if (writer != null) {
                writer.abandon();
                writer = null;
            }
            runner = null;
            instance = null;
        }

        void finish() {
            if (up && writer != null) {
                writer.close(nowMillis);
                writer = null;
            }
        }

        @Override
        public long currentTimeMillis() {
            return nowMillis + skewMillis;
        }

        @Override
        public long nextRandomLong() {
            return choices.bits(new ChoicePoint.RandomDraw(id));
        }

        @Override
        public Optional<byte[]> storageRead(String key) {
            byte[] value = current.get(key);
            return value == null ? Optional.empty() : Optional.of(value.clone());
        }

        @Override
        public void storageWrite(String key, byte[] value) {
            if (value == null) {
                current.remove(key);
            } else {
                current.put(key, value.clone());
            }
        }

        @Override
        public void storageSync() {
            durable.clear();
            durable.putAll(current);
        }

        @Override
        public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
            if (partitioned(id, to) || choices.chance(new ChoicePoint.Drop(id, to), settings.dropProbability())) {
                dropped++;
                return;
            }
            int copies = choices.chance(new ChoicePoint.Duplicate(id, to), settings.duplicateProbability()) ? 2 : 1;
            duplicated += copies - 1;
            for (int copy = 0; copy < copies; copy++) {
                long delay = choices.between(new ChoicePoint.Delay(id, to), settings.minDelayMillis(), settings.maxDelayMillis());
                Pending delivery = new Pending(Kind.DELIVERY, nowMillis + delay, order++, to);
                delivery.from = id;
                delivery.senderLamport = senderLamport;
                delivery.messageId = messageId;
                delivery.message = message;
                schedule(delivery);
            }
        }

        @Override
        public boolean knows(NodeId node) {
            return nodes.containsKey(node);
        }

        @Override
        public void scheduleTimer(TimerId timer, Duration delay) {
            liveTimers.add(timer.value());
            Pending due = new Pending(Kind.TIMER, nowMillis + Math.max(0, delay.toMillis()), order++, id);
            due.incarnation = incarnation;
            due.timer = timer;
            schedule(due);
        }

        @Override
        public void cancelTimer(TimerId timer) {
            liveTimers.remove(timer.value());
        }

        @Override
        public void log(NodeId node, int incarnationNumber, String line) {
            options.nodeOutput().accept(String.format("%8d ms %s#%d: %s", nowMillis - EPOCH_MILLIS, node,
                    incarnationNumber, line));
        }

        private Node instantiate(String name) {
            try {
                Class<?> type = Class.forName(name, true, options.classLoader());
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
    }

    private static String codeVersion(Node node) {
        String version = node.getClass().getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }
}
