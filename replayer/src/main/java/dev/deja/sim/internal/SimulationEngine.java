package dev.deja.sim.internal;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.runtime.Partition;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEncoding;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceOrder;
import dev.deja.trace.TraceSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One simulated run: a discrete-event loop over virtual time. Pending deliveries, timer firings and restarts
 * wait in one queue ordered by due time; the events due within the exploration window of the earliest one
 * (the same instant when there is no window) are enabled, and the choice source picks which runs. Every node
 * is driven through the same {@code NodeRunner} a deployment uses, through its {@link SimulatedPlatform}; with
 * a trace directory it records through a real {@code NodeLogWriter}, so the trace is a real trace, and without
 * one it records nothing and keeps only what the observer needs.
 */
public final class SimulationEngine {
    /** Virtual time starts here (2023-11-14T22:13:20Z): fixed, so that a run's files never depend on today. */
    public static final long EPOCH_MILLIS = 1_700_000_000_000L;

    final SimulationSettings settings;
    final Path traceDirectory;
    final Simulator.Options options;
    final ChoiceSource choices;
    final Simulator.Exploration exploration;
    final MessageCodec codec;
    /**
     * Whether recorded nodes build their entries: always with a trace or when continuing a recording (whose replayed
     * runners record), and in memory unless asked not to.
     */
    final boolean buildsEntries;
    final InstantSource virtualClock = () -> Instant.ofEpochMilli(this.nowMillis);
    final Map<NodeId, SimulatedPlatform> nodes = new TreeMap<>();
    /** The same nodes for lookups at every step: a hash lookup rather than a string comparison per tree level. */
    final Map<NodeId, SimulatedPlatform> byId = new HashMap<>();
    /** The workload driver's platform, or null. */
    private SimulatedPlatform driver;
    /** Simple names of message and tag classes, computed once per class rather than at every event. */
    private static final ClassValue<String> SIMPLE_NAMES = new ClassValue<>() {
        @Override
        protected String computeValue(Class<?> type) {
            return Pending.simpleName(type.getName());
        }
    };
    private static final java.util.concurrent.ConcurrentHashMap<String, String> SIMPLE_TYPES =
            new java.util.concurrent.ConcurrentHashMap<>();
    private List<NodeId> clusterIds;
    /** When the run continues a recording: every id a node may send to (unrecorded clients too); else null. */
    java.util.Set<NodeId> addressable;
    private final PriorityQueue<Pending> queue = new PriorityQueue<>();
    final List<TraceSummary.LauncherEvent> launcherEvents = new ArrayList<>();
    /** Nodes cut off from all others by an isolation choice, until the virtual instant they map to. */
    private final Map<NodeId, Long> isolatedUntil = new LinkedHashMap<>();
    private final StepObserver observer;
    private final ObserverView view = new ObserverView();
    long nowMillis = EPOCH_MILLIS;
    private long order;
    long steps;
    long entries;
    private long crashes;
    long dropped;
    long duplicated;
    /** The step whose handler is running (events it creates are caused by it), -1 before the first. */
    long causeStep = -1;
    /** With a trace: the order the run's entries are recorded in (see {@link TraceOrder}); else null. */
    TraceOrder.Writer traceOrder;

    public SimulationEngine(SimulationSettings settings, Path traceDirectory, Simulator.Options options) {
        this.settings = settings;
        this.traceDirectory = traceDirectory;
        this.options = options;
        this.choices = options.choices();
        this.exploration = options.exploration();
        this.observer = options.observer();
        this.codec = MessageCodec.shared(options.classLoader());
        this.buildsEntries = traceDirectory != null || options.detail() == Simulator.Detail.ENTRIES
                || options.start().isPresent();
        this.clusterIds = settings.nodes().keySet().stream().sorted().toList();
    }

    /** Runs to the end and, with a trace directory, writes {@code trace.json}. */
    public SimulationResult run() {
        long startNanos = System.nanoTime();
        if (traceDirectory != null) {
            requireEmptyOrAbsent(traceDirectory);
            traceOrder = TraceOrder.Writer.create(traceDirectory);
        }
        try {
            return runAndWrite(startNanos);
        } finally {
            if (traceOrder != null) {
                traceOrder.abandon(); // unless written: a run that failed leaves its logs to the Lamport merge
            }
        }
    }

    private SimulationResult runAndWrite(long startNanos) {
        SimulationResult.Ending ending;
        if (options.start().isPresent()) {
            ending = continueRecording(new HandOver(options.start().get()));
        } else {
            for (NodeId id : clusterIds) {
                SimulationSettings.NodeSpec spec = settings.nodes().get(id);
                nodes.put(id, new SimulatedPlatform(this, id, spec.className(), spec.args(), true,
                        clusterIds.stream().filter(p -> !p.equals(id)).toList()));
            }
            settings.driver().ifPresent(d -> nodes.put(d.id(), new SimulatedPlatform(this, d.id(), d.className(), Map.of(),
                    false, clusterIds)));
            indexNodes();
            for (SimulatedPlatform node : nodes.values()) {
                node.skewMillis = drawSkew(node.id);
            }
            addPartitionEvents();
            // Cluster nodes first, so that the driver's first messages find them running, as in a deployment.
            List<SimulatedStep> starts = new ArrayList<>();
            for (NodeId id : clusterIds) {
                SimulatedPlatform node = nodes.get(id);
                node.boot();
                TraceEvent entry = node.lastHandlerEntry();
                if (observer != StepObserver.NONE && entry != null) {
                    starts.add(new SimulatedStep(-1, new ChoicePoint.Enabled(ChoicePoint.EventKind.RESTART, node.id, null,
                            node.incarnation, 0, "", 0, -1, 0), true, entry, node.instance));
                }
            }
            settings.driver().ifPresent(d -> nodes.get(d.id()).boot());
            ending = observer == StepObserver.NONE || observer.booted(starts, view) ? loop()
                    : SimulationResult.Ending.STOPPED;
        }
        for (SimulatedPlatform node : nodes.values()) {
            node.finish();
            if (!buildsEntries && node.recorded) {
                entries += node.entriesRecorded();
            }
        }
        if (traceDirectory != null) {
            if (traceOrder != null) {
                traceOrder.close();
            }
            launcherEvents.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis()));
            try {
                Trace.writeSummary(traceDirectory, new TraceSummary(TraceEncoding.FORMAT_VERSION, "simulate", options.command(),
                        clusterIds.stream().map(NodeId::value).toList(), EPOCH_MILLIS, nowMillis, settings.describe(),
                        launcherEvents));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + traceDirectory.resolve(TraceSummary.FILE), e);
            }
        }
        return new SimulationResult(steps, entries, nowMillis - EPOCH_MILLIS, crashes, dropped, duplicated, ending,
                Duration.ofNanos(System.nanoTime() - startNanos));
    }

    private long drawSkew(NodeId id) {
        return settings.clockSkewMillis() == 0 ? 0
                : choices.between(new ChoicePoint.ClockSkew(id), -settings.clockSkewMillis(), settings.clockSkewMillis());
    }

    private void addPartitionEvents() {
        for (Partition partition : settings.partitions()) {
            launcherEvents.add(new TraceSummary.LauncherEvent(partition.startMillis(), "partition", "", partition.toString()));
            launcherEvents.add(new TraceSummary.LauncherEvent(partition.healMillis(), "heal", "", partition.toString()));
        }
    }

    /**
     * Rebuilds the recorded state by replay and runs on from it: the recorded nodes (not the settings' nodes, nor its
     * driver) take part; their clocks go on from the recording's (virtual time itself starts at the epoch, so that the
     * settings' limits and partitions count from the hand-over); pending timers stay due when they were; the messages in
     * flight are sent again through the simulated network, which draws their delay, loss and duplication.
     */
    private SimulationResult.Ending continueRecording(HandOver handOver) {
        if (!handOver.replay(options.classLoader(), observer)) {
            return SimulationResult.Ending.STOPPED;
        }
        steps = handOver.handlerCalls();
        clusterIds = List.copyOf(handOver.starts().keySet());
        addressable = handOver.addressable();
        long recordedNow = handOver.latestMillis();
        long offset = recordedNow - EPOCH_MILLIS;
        handOver.starts().forEach((id, start) -> nodes.put(id, new SimulatedPlatform(this, id, start.nodeClass(),
                start.args(), true, start.peers())));
        indexNodes();
        for (SimulatedPlatform node : nodes.values()) {
            node.skewMillis = offset + drawSkew(node.id);
        }
        addPartitionEvents();
        handOver.runners().forEach((id, runner) -> {
            SimulatedPlatform node = nodes.get(id);
            HandOver.Twin twin = handOver.twin(id);
            node.adopt(runner, twin, options.start().get().recording().logs().get(id));
            twin.switchTo(node);
            for (HandOver.Timer timer : twin.timers.values()) {
                node.liveTimers.add(timer.id());
                Pending due = newPending(Kind.TIMER, EPOCH_MILLIS + Math.max(0, timer.dueMillis() - recordedNow), id);
                due.incarnation = node.incarnation;
                due.id = timer.id();
                schedule(due);
            }
        });
        if (traceOrder != null) {
            orderPrefix(handOver);
        }
        for (HandOver.InFlight message : handOver.inFlight()) {
            SimulatedPlatform sender = nodes.get(message.from());
            if (sender != null) {
                sender.transmit(message.to(), message.senderLamport(), message.messageId(), message.message());
            }
        }
        for (NodeId id : clusterIds) {
            if (!handOver.runners().containsKey(id)) {
                nodes.get(id).boot(); // had not started by the position
            }
        }
        return loop();
    }

    /**
     * The order of the recorded prefix copied into the new trace: the entries as the hand-over's replay merged them,
     * then the rest of each handler call begun by then (copied too, and caused by nothing later). A prefix not copied
     * as merged (a recording cut inside a handler call) leaves the new trace without an order.
     */
    private void orderPrefix(HandOver handOver) {
        Map<NodeId, Long> merged = new HashMap<>();
        for (NodeId node : handOver.mergedOrder()) {
            merged.merge(node, 1L, Long::sum);
        }
        for (Map.Entry<NodeId, Long> count : merged.entrySet()) {
            SimulatedPlatform node = byId.get(count.getKey());
            if (node == null || node.copiedEntries < count.getValue()) {
                traceOrder.abandon();
                traceOrder = null;
                return;
            }
        }
        for (NodeId node : handOver.mergedOrder()) {
            traceOrder.entry(node);
        }
        for (SimulatedPlatform node : nodes.values()) {
            traceOrder.entries(node.id, node.copiedEntries - merged.getOrDefault(node.id, 0L));
        }
    }

    private void indexNodes() {
        byId.putAll(nodes);
        driver = settings.driver().map(d -> nodes.get(d.id())).orElse(null);
    }

    private SimulationResult.Ending loop() {
        List<Pending> due = new ArrayList<>();
        long window = exploration.windowMillis();
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
            long last = Math.max(first.dueMillis, nowMillis) + window;
            while (!queue.isEmpty() && queue.peek().dueMillis <= last) {
                due.add(queue.poll());
            }
            Pending next;
            if (due.size() == 1) {
                next = due.getFirst();
            } else {
                List<ChoicePoint.Enabled> enabled = new ArrayList<>(due.size());
                for (Pending pending : due) {
                    enabled.add(pending.describe());
                }
                int chosen = choices.pick(new ChoicePoint.NextEvent(steps, enabled), due.size());
                if (chosen < 0 || chosen >= due.size()) {
                    throw new IllegalStateException("the choice source picked event " + chosen + " of " + due.size());
                }
                for (int i = 0; i < due.size(); i++) {
                    if (i != chosen) {
                        queue.add(due.get(i));
                    }
                }
                next = due.get(chosen);
            }
            // A later event run first makes the earlier ones late: time never goes back.
            nowMillis = Math.max(nowMillis, next.dueMillis);
            SimulatedPlatform node = byId.get(next.node);
            long step = steps;
            causeStep = step;
            if (execute(next, node)) {
                steps++;
                if (observer != StepObserver.NONE && !observer.afterStep(new SimulatedStep(step, next.describe(),
                        node.recorded, node.lastHandlerEntry(), node.instance), view)) {
                    return SimulationResult.Ending.STOPPED;
                }
                if (node.recorded && node.up) {
                    explorationFaults(node, step);
                }
                maybeCrash();
                if (settings.stop() == SimulationSettings.Stop.WHEN_DRIVER_FINISHES && driverFinished()) {
                    return SimulationResult.Ending.DRIVER_FINISHED;
                }
            }
        }
    }

    /** Runs one pending event; returns whether a handler ran (a step). */
    private boolean execute(Pending next, SimulatedPlatform node) {
        switch (next.kind) {
            case DELIVERY -> {
                if (!node.up) {
                    dropped++;
                    return false;
                }
                if (next.shared != null) {
                    node.runner.deliverShared(next.from, next.senderLamport, next.id, next.shared);
                } else {
                    node.runner.deliver(next.from, next.senderLamport, next.id, next.message);
                }
                return true;
            }
            case TIMER -> {
                if (!node.up || node.incarnation != next.incarnation || !node.liveTimers.remove(next.id)) {
                    return false; // the timer died with its incarnation, or was cancelled
                }
                node.runner.fireTimer(new TimerId(next.id));
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

    /** Crash and partition points right after a cluster node's handler, where they can matter. */
    private void explorationFaults(SimulatedPlatform node, long step) {
        if (exploration.crashPoints() && choices.chance(new ChoicePoint.CrashAfter(step, node.id), 0)) {
            crash(node, "after its step " + step);
        }
        if (exploration.isolationPoints() && !isolatedUntil.containsKey(node.id)
                && choices.chance(new ChoicePoint.Isolate(step, node.id), 0)) {
            long heal = nowMillis + exploration.isolationMillis();
            isolatedUntil.put(node.id, heal);
            launcherEvents.add(new TraceSummary.LauncherEvent(nowMillis - EPOCH_MILLIS, "partition", node.id.value(),
                    node.id + " cut off until " + (heal - EPOCH_MILLIS) + " ms"));
        }
    }

    private void maybeCrash() {
        if (settings.crashRate() == 0 || !choices.chance(new ChoicePoint.Crash(steps), settings.crashRate())) {
            return;
        }
        List<SimulatedPlatform> running = nodes.values().stream().filter(n -> n.recorded && n.up).toList();
        if (running.isEmpty()) {
            return;
        }
        crash(running.get(choices.pick(new ChoicePoint.CrashVictim(running.size()), running.size())), "between events");
    }

    private void crash(SimulatedPlatform victim, String detail) {
        victim.crash();
        crashes++;
        launcherEvents.add(new TraceSummary.LauncherEvent(nowMillis - EPOCH_MILLIS, "crash", victim.id.value(), detail));
        Pending restart = new Pending(Kind.RESTART, nowMillis + settings.restartDelayMillis(), order++, victim.id, causeStep);
        restart.id = victim.incarnation;
        schedule(restart);
    }

    private boolean driverFinished() {
        return driver != null && driver.instance instanceof WorkloadDriver workload && workload.finished();
    }

    void schedule(Pending pending) {
        queue.add(pending);
    }

    Pending newPending(Kind kind, long dueMillis, NodeId node) {
        return new Pending(kind, dueMillis, order++, node, causeStep);
    }

    boolean partitioned(NodeId from, NodeId to) {
        long sinceStart = nowMillis - EPOCH_MILLIS;
        for (Partition partition : settings.partitions()) {
            if (partition.separates(from, to, sinceStart)) {
                return true;
            }
        }
        if (!isolatedUntil.isEmpty()) {
            return isolated(from) || isolated(to);
        }
        return false;
    }

    private boolean isolated(NodeId node) {
        Long until = isolatedUntil.get(node);
        if (until == null) {
            return false;
        }
        if (nowMillis >= until) {
            isolatedUntil.remove(node);
            return false;
        }
        return true;
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

    enum Kind { DELIVERY, TIMER, RESTART }

    /** Something due at a virtual instant; {@code order} breaks no ties by itself, it only keeps the queue stable. */
    static final class Pending implements Comparable<Pending> {
        final Kind kind;
        final long dueMillis;
        final long order;
        final NodeId node;
        final long causeStep;
        NodeId from;
        long senderLamport;
        /** The message id, the timer id, or the incarnation that crashed. */
        long id;
        int copy;
        Payload message;
        /** A message handed over as it is (see {@link Simulator.Detail#STEPS_ONLY}), instead of {@link #message}. */
        Object shared;
        int incarnation;
        String tagType = "";
        /** What {@link #describe()} returns, built once: the queue's events are described at every choice. */
        private ChoicePoint.Enabled described;

        Pending(Kind kind, long dueMillis, long order, NodeId node, long causeStep) {
            this.kind = kind;
            this.dueMillis = dueMillis;
            this.order = order;
            this.node = node;
            this.causeStep = causeStep;
        }

        ChoicePoint.Enabled describe() {
            if (described != null) {
                return described;
            }
            ChoicePoint.EventKind eventKind = switch (kind) {
                case DELIVERY -> ChoicePoint.EventKind.DELIVERY;
                case TIMER -> ChoicePoint.EventKind.TIMER;
                case RESTART -> ChoicePoint.EventKind.RESTART;
            };
            String type = message != null ? SIMPLE_TYPES.computeIfAbsent(message.type(), Pending::simpleName)
                    : shared != null ? SIMPLE_NAMES.get(shared.getClass()) : tagType;
            described = new ChoicePoint.Enabled(eventKind, node, from,
                    kind == Kind.TIMER ? ((long) incarnation << 40) | id : id, copy, type, dueMillis - EPOCH_MILLIS,
                    causeStep, message != null ? java.util.Arrays.hashCode(message.bytes()) : 0);
            return described;
        }

        /** As {@link Payload#simpleType()} does it. */
        static String simpleName(String type) {
            int dot = Math.max(type.lastIndexOf('.'), type.lastIndexOf('$'));
            return type.substring(dot + 1);
        }

        @Override
        public int compareTo(Pending other) {
            return dueMillis != other.dueMillis ? Long.compare(dueMillis, other.dueMillis) : Long.compare(order, other.order);
        }
    }

    /** The observer's read-only view of the run. */
    private final class ObserverView implements StepObserver.View {
        @Override
        public Map<NodeId, Object> liveNodes() {
            Map<NodeId, Object> live = new LinkedHashMap<>();
            for (SimulatedPlatform node : nodes.values()) {
                if (node.up && node.instance != null) {
                    live.put(node.id, node.instance);
                }
            }
            return Collections.unmodifiableMap(live);
        }

        @Override
        public List<ChoicePoint.Enabled> pending() {
            List<Pending> sorted = new ArrayList<>(queue);
            Collections.sort(sorted);
            List<ChoicePoint.Enabled> out = new ArrayList<>(sorted.size());
            for (Pending pending : sorted) {
                if (pending.kind != Kind.TIMER || nodes.get(pending.node).liveTimers.contains(pending.id)) {
                    out.add(pending.describe());
                }
            }
            return out;
        }

        @Override
        public long virtualMillis() {
            return nowMillis - EPOCH_MILLIS;
        }
    }
}
