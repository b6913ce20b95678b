package dev.deja.sim.internal;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.replay.Divergence;
import dev.deja.replay.ReplayException;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.ReplayState;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.StepObserver;
import dev.deja.replay.Replayer;
import dev.deja.replay.internal.NodeStream;
import dev.deja.replay.internal.ReplayEngine;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.sim.TraceStart;
import dev.deja.trace.Event;
import dev.deja.trace.Payload;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Rebuilds the state a recorded run reached at a {@link TraceStart} and hands it to a {@link SimulationEngine}: the
 * trace is replayed up to the position with every runner's platform and sink wrapped in a {@link Twin}, which passes
 * everything to the replay twin while watching the node's effects (messages sent, timers set and cancelled, storage
 * written and read); then every twin is switched to the node's {@link SimulatedPlatform}, so that the very runner and
 * node object replay rebuilt go on under the simulator. Confined to the engine's thread.
 */
final class HandOver {
    /** A message a replayed node sent before the position that no node had received by then. */
    record InFlight(NodeId from, NodeId to, long senderLamport, long messageId, Payload message) {
    }

    /** A timer a replayed node had set and not cancelled, due at {@code dueMillis} on the recording's clock. */
    record Timer(long id, long dueMillis) {
    }

    private final TraceStart start;
    private final Map<NodeId, Twin> twins = new TreeMap<>();
    private final Map<String, InFlight> sent = new LinkedHashMap<>();
    private final Map<NodeId, TraceEvent> lastHandler = new TreeMap<>();
    private final Map<NodeId, Event.Start> starts = new TreeMap<>();
    private final Set<NodeId> addressable = new LinkedHashSet<>();
    private long latestMillis = Long.MIN_VALUE;
    private long handlerCalls;
    /** The node of every entry the replay merged, in its order. */
    private final List<NodeId> mergedOrder = new ArrayList<>();
    private SortedMap<NodeId, NodeRunner> runners;
    private ReplayResult replayed;

    HandOver(TraceStart start) {
        this.start = start;
    }

    /**
     * Replays the prefix, showing {@code observer} every replayed handler call as a step; fails with a one-line reason
     * when the trace diverges or a class is missing. Returns false when the observer ended the run.
     */
    boolean replay(ClassLoader loader, StepObserver observer) {
        TraceStart.Recording recording = start.recording();
        List<NodeStream> streams = new ArrayList<>();
        recording.logs().forEach((node, entries) -> {
            streams.add(NodeStream.of(node, Trace.nodeDirectory(recording.directory(), node).toString(), entries,
                    recording.lastIncarnationCompleted(node)));
            addressable.add(node);
            entries.stream().filter(e -> e.event() instanceof Event.Start).findFirst().ifPresent(e -> {
                Event.Start s = (Event.Start) e.event();
                starts.put(node, s);
                addressable.addAll(s.peers());
            });
        });
        Replayer.Options options = Replayer.Options.defaults().withClassLoader(loader).withPartial(true)
                .withUntilPosition(start.position() + 1)
                .withListener((event, position, state) -> {
                    TraceEvent entry = event.entry();
                    mergedOrder.add(entry.node());
                    latestMillis = Math.max(latestMillis, entry.atMillis());
                    if (entry.event() instanceof Event.TimerFired fired && twins.containsKey(entry.node())) {
                        twins.get(entry.node()).timers.remove(fired.timerId());
                    }
                    if (entry.event() instanceof Event.Receive receive) {
                        sent.remove(key(receive.from(), receive.messageId()));
                    }
                    if (event.startedHandler()) {
                        lastHandler.put(entry.node(), entry);
                        long step = handlerCalls++;
                        if (observer != StepObserver.NONE && !observer.replayedStep(new SimulatedStep(step,
                                describe(entry), true, entry, state.node(entry.node()).orElse(null)),
                                new ReplayedView(state, entry))) {
                            throw new Ended();
                        }
                    }
                });
        ReplayEngine engine = new ReplayEngine(recording.directory().toString(), streams, options, new ReplayEngine.Twins() {
            @Override
            public Platform platform(NodeId node, int incarnation, Platform replay) {
                Twin twin = twins.computeIfAbsent(node, Twin::new);
                twin.beginIncarnation(incarnation, replay);
                return twin;
            }

            @Override
            public TraceSink sink(NodeId node, TraceSink replay) {
                Twin twin = twins.get(node);
                twin.replaySink = replay;
                return twin;
            }
        }, recording::orderCursor);
        try {
            replayed = engine.run();
        } catch (Ended e) {
            return false;
        }
        if (!replayed.divergences().isEmpty()) {
            Divergence first = replayed.divergences().getFirst();
            throw new ReplayException(recording.directory() + ": the trace diverges in replay before position "
                    + start.position() + ", so its state there cannot be rebuilt: node " + first.node() + ", seq "
                    + first.seq() + ": expected " + first.expected() + ", the node did " + first.actual()
                    + " ('deja replay " + recording.directory() + "' shows it)");
        }
        runners = engine.runners();
        return true;
    }

    /** The node of every entry the replay merged up to the position, in the merged order. */
    List<NodeId> mergedOrder() {
        return mergedOrder;
    }

    /** How many handler calls the replay ran: the steps the simulated run goes on from. */
    long handlerCalls() {
        return handlerCalls;
    }

    /** A replayed handler call as the simulator would describe the event that caused it. */
    private static ChoicePoint.Enabled describe(TraceEvent entry) {
        return switch (entry.event()) {
            case Event.Receive r -> new ChoicePoint.Enabled(ChoicePoint.EventKind.DELIVERY, entry.node(), r.from(),
                    r.messageId(), 0, r.message().simpleType(), entry.atMillis(), -1,
                    java.util.Arrays.hashCode(r.message().bytes()));
            case Event.TimerFired t -> new ChoicePoint.Enabled(ChoicePoint.EventKind.TIMER, entry.node(), null,
                    t.timerId(), 0, t.tag().simpleType(), entry.atMillis(), -1, 0);
            // A start or a crash followed by a start: a boot, which the simulator calls a restart.
            default -> new ChoicePoint.Enabled(ChoicePoint.EventKind.RESTART, entry.node(), null, entry.incarnation(),
                    0, "", entry.atMillis(), -1, 0);
        };
    }

    /** Thrown out of the replay listener when the observer ends the run. */
    private static final class Ended extends RuntimeException {
        Ended() {
            super(null, null, false, false);
        }
    }

    /** What an observer sees of a replayed step: the replayed nodes; nothing is pending in a replay. */
    private static final class ReplayedView implements StepObserver.View {
        private final Map<NodeId, Object> nodes;
        private final long millis;

        ReplayedView(ReplayState state, TraceEvent entry) {
            this.nodes = java.util.Collections.unmodifiableMap(new TreeMap<>(state.nodes()));
            this.millis = entry.atMillis() - SimulationEngine.EPOCH_MILLIS;
        }

        @Override
        public Map<NodeId, Object> liveNodes() {
            return nodes;
        }

        @Override
        public List<ChoicePoint.Enabled> pending() {
            return List.of();
        }

        @Override
        public long virtualMillis() {
            return millis;
        }
    }

    private static String key(NodeId from, long messageId) {
        return from.value() + "/" + messageId;
    }

    /** Every recorded node with the start entry it first booted with (class, args, peers), in id order. */
    Map<NodeId, Event.Start> starts() {
        return starts;
    }

    /** Every id a node may address: the recorded nodes and every peer their start entries name (clients included). */
    Set<NodeId> addressable() {
        return addressable;
    }

    /** The recording's clock at the position: the latest time stamped on an entry replayed so far. */
    long latestMillis() {
        return latestMillis == Long.MIN_VALUE ? 0 : latestMillis;
    }

    SortedMap<NodeId, NodeRunner> runners() {
        return runners;
    }

    Twin twin(NodeId node) {
        return twins.get(node);
    }

    Map<NodeId, TraceEvent> lastHandlerEntries() {
        Map<NodeId, TraceEvent> out = new TreeMap<>(lastHandler);
        out.keySet().retainAll(runners.keySet());
        return out;
    }

    /** The messages in flight at the position, in the order they were sent. */
    List<InFlight> inFlight() {
        return List.copyOf(sent.values());
    }

    /**
     * One node's platform and sink while it is replayed and after: a watcher of the replay twin until
     * {@link #switchTo}, then the simulated platform's.
     */
    final class Twin implements Platform, TraceSink {
        private final NodeId node;
        private Platform replay;
        TraceSink replaySink;
        private SimulatedPlatform simulated;
        private TraceSink simulatedSink;
        final Map<String, byte[]> current = new HashMap<>();
        final Map<String, byte[]> durable = new HashMap<>();
        final Map<Long, Timer> timers = new LinkedHashMap<>();
        int incarnation;
        long nextSeq;
        long lastLamport;
        private long dispatchMillis;

        Twin(NodeId node) {
            this.node = node;
        }

        void beginIncarnation(int number, Platform replayTwin) {
            replay = replayTwin;
            if (incarnation != 0) {
                // A restart: the timers died with the old incarnation, and what it had not synced is lost.
                timers.clear();
                current.clear();
                current.putAll(durable);
            }
            incarnation = number;
        }

        void switchTo(SimulatedPlatform target) {
            simulated = target;
            simulatedSink = target.sink();
        }

        @Override
        public void append(TraceEvent event) {
            if (simulatedSink != null) {
                simulatedSink.append(event);
                return;
            }
            replaySink.append(event);
            nextSeq = event.seq() + 1;
            lastLamport = event.lamport();
            dispatchMillis = event.atMillis();
        }

        @Override
        public void beginHandler() {
            (simulatedSink != null ? simulatedSink : replaySink).beginHandler();
        }

        @Override
        public void endHandler() {
            (simulatedSink != null ? simulatedSink : replaySink).endHandler();
        }

        @Override
        public long currentTimeMillis() {
            return simulated != null ? simulated.currentTimeMillis() : replay.currentTimeMillis();
        }

        @Override
        public long nextRandomLong() {
            return simulated != null ? simulated.nextRandomLong() : replay.nextRandomLong();
        }

        @Override
        public Optional<byte[]> storageRead(String key) {
            if (simulated != null) {
                return simulated.storageRead(key);
            }
            Optional<byte[]> value = replay.storageRead(key);
            if (value.isPresent() && !current.containsKey(key)) {
                // Written before the recording began: it was durable then.
                current.put(key, value.get().clone());
                durable.putIfAbsent(key, value.get().clone());
            }
            return value;
        }

        @Override
        public void storageWrite(String key, byte[] value) {
            if (simulated != null) {
                simulated.storageWrite(key, value);
                return;
            }
            replay.storageWrite(key, value);
            if (value == null) {
                current.remove(key);
            } else {
                current.put(key, value.clone());
            }
        }

        @Override
        public void storageSync() {
            if (simulated != null) {
                simulated.storageSync();
                return;
            }
            replay.storageSync();
            durable.clear();
            durable.putAll(current);
        }

        @Override
        public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
            if (simulated != null) {
                simulated.transmit(to, senderLamport, messageId, message);
                return;
            }
            replay.transmit(to, senderLamport, messageId, message);
            sent.put(key(node, messageId), new InFlight(node, to, senderLamport, messageId, message));
        }

        @Override
        public boolean knows(NodeId other) {
            return simulated != null ? simulated.knows(other) : replay.knows(other);
        }

        @Override
        public void scheduleTimer(TimerId timer, Duration delay) {
            if (simulated != null) {
                simulated.scheduleTimer(timer, delay);
                return;
            }
            replay.scheduleTimer(timer, delay);
            timers.put(timer.value(), new Timer(timer.value(), dispatchMillis + Math.max(0, delay.toMillis())));
        }

        @Override
        public void cancelTimer(TimerId timer) {
            if (simulated != null) {
                simulated.cancelTimer(timer);
                return;
            }
            replay.cancelTimer(timer);
            timers.remove(timer.value());
        }

        @Override
        public void log(NodeId id, int number, String line) {
            (simulated != null ? simulated : replay).log(id, number, line);
        }
    }
}
