package dev.deja.replay.internal;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.replay.Divergence;
import dev.deja.replay.ReplayException;
import dev.deja.replay.ReplayListener;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.ReplayState;
import dev.deja.replay.ReplayedEvent;
import dev.deja.replay.Replayer;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.trace.TraceSink;
import dev.deja.trace.Event;
import dev.deja.trace.EventJson;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.TraceEvent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Drives the replay: pulls merged entries, re-runs a handler at each entry that began one, and checks what
 * the node produces against its own log. See {@link Replayer} for the contract. Single-threaded.
 */
public final class ReplayEngine {
    /** Decodes message contents to JSON trees for descriptions; needs no message class. */
    private static final MessageCodec DUMP_CODEC = MessageCodec.defaultCodec();
    private final String traceName;
    private final List<NodeStream> streams;
    private final Replayer.Options options;
    private final MessageCodec codec;
    private final SortedMap<NodeId, NodeState> states = new TreeMap<>();
    private final List<Divergence> divergences = new ArrayList<>();
    private final State view = new State();
    private final Twins twins;
    /** Opens the simulator's order to follow, or null to merge by Lamport clock. */
    private final java.util.function.Supplier<dev.deja.trace.TraceOrder.Cursor> order;

    /**
     * Wraps the replay twin of each incarnation's platform and trace sink before its runner is made, so that a caller
     * can watch the replayed effects (sends, timers, storage) and later hand the replayed node over to another
     * platform: the simulator continues a recorded run from a replayed state this way.
     */
    public interface Twins {
        /** The platform the runner of {@code node}'s incarnation {@code incarnation} uses instead of {@code replay}. */
        Platform platform(NodeId node, int incarnation, Platform replay);

        /** The sink that runner records to instead of {@code replay} (called right after {@link #platform}). */
        TraceSink sink(NodeId node, TraceSink replay);
    }

    public ReplayEngine(String traceName, List<NodeStream> streams, Replayer.Options options) {
        this(traceName, streams, options, null);
    }

    /** As the other constructor, with {@code twins} (null: none) wrapping every runner's platform and sink. */
    public ReplayEngine(String traceName, List<NodeStream> streams, Replayer.Options options, Twins twins) {
        this(traceName, streams, options, twins, null);
    }

    /**
     * As the other constructors, merging the streams in the order {@code order} opens (null: by Lamport clock; see
     * {@link HappensBeforeMerge}).
     */
    public ReplayEngine(String traceName, List<NodeStream> streams, Replayer.Options options, Twins twins,
                        java.util.function.Supplier<dev.deja.trace.TraceOrder.Cursor> order) {
        this.order = order;
        this.traceName = traceName;
        this.streams = List.copyOf(streams);
        this.options = options;
        this.codec = new MessageCodec(options.classLoader());
        this.twins = twins;
    }

    /** After {@link #run}: the runner of every node that started and did not diverge, by node. */
    public SortedMap<NodeId, NodeRunner> runners() {
        SortedMap<NodeId, NodeRunner> out = new TreeMap<>();
        states.forEach((id, state) -> {
            if (state.runner != null && !state.skipped) {
                out.put(id, state.runner);
            }
        });
        return Collections.unmodifiableSortedMap(out);
    }

    /** Replays to the end, the position limit or the first divergence (unless keep-going). */
    public ReplayResult run() {
        long startNanos = System.nanoTime();
        long position = 0;
        long handlerCalls = 0;
        try (HappensBeforeMerge merge = new HappensBeforeMerge(traceName, streams,
                order == null ? null : order.get())) {
            if (options.onlyNodes().isEmpty() && !options.partial()) {
                MissingNodes.refuseIfMissing(traceName, streams);
            }
            for (NodeStream stream : streams) {
                states.put(stream.node(), new NodeState(stream));
            }
            while (position < options.untilPosition() && merge.hasNext()) {
                TraceEvent entry = merge.next();
                NodeState state = states.get(entry.node());
                boolean started = !state.skipped && entry.seq() >= state.nextSeq && process(state, entry);
                state.lastLamport = entry.lamport();
                if (started) {
                    handlerCalls++;
                }
                ReplayedEvent replayed = new ReplayedEvent(entry, started);
                for (ReplayListener listener : options.listeners()) {
                    listener.afterEvent(replayed, position, view);
                }
                position++;
                if (!divergences.isEmpty() && !options.keepGoing()) {
                    break;
                }
            }
        }
        return new ReplayResult(position, handlerCalls, states.size(), divergences,
                Duration.ofNanos(System.nanoTime() - startNanos));
    }

    /** Handles an entry no handler has produced yet: it must begin a handler. Returns whether one ran. */
    private boolean process(NodeState state, TraceEvent entry) {
        switch (entry.event()) {
            case Event.Crash crash -> {
                TraceEvent start = state.stream.peek(0);
                if (start == null || !(start.event() instanceof Event.Start startEvent)
                        || start.incarnation() != entry.incarnation()) {
                    throw new ReplayException(state.stream.origin() + ": node " + entry.node() + ": " + entry
                            + " is not followed by the start of incarnation " + entry.incarnation() + " but by "
                            + (start == null ? "the end of the log" : start));
                }
                beginIncarnation(state, entry, startEvent, crash.crashedIncarnation());
            }
            case Event.Start start -> beginIncarnation(state, entry, start, 0);
            case Event.Receive receive -> {
                requireRunner(state, entry);
                runHandler(state, entry, () -> state.runner.deliver(receive.from(), receive.fromLamport(),
                        receive.messageId(), receive.message()));
            }
            case Event.TimerFired timer -> {
                requireRunner(state, entry);
                runHandler(state, entry, () -> state.runner.fireTimer(new TimerId(timer.timerId())));
            }
            default -> {
                if (state.runner == null) {
                    throw new ReplayException(state.stream.origin() + ": the log of node " + entry.node()
                            + " does not begin with a start: " + entry);
                }
                // Unreachable when every handler's entries were checked right after it ran; kept as a guard.
                diverge(state, entry.seq(), entry.lamport(), describe(entry), "no handler produced this entry");
                return false;
            }
        }
        return true;
    }

    private void requireRunner(NodeState state, TraceEvent entry) {
        if (state.runner == null || state.runner.incarnation() != entry.incarnation()) {
            throw new ReplayException(state.stream.origin() + ": node " + entry.node() + ": " + entry
                    + " belongs to incarnation " + entry.incarnation() + ", which has no start entry before it");
        }
    }

    private void beginIncarnation(NodeState state, TraceEvent first, Event.Start start, int crashedIncarnation) {
        Node node = instantiate(state, start.nodeClass());
        NodeRunner.Setup setup = new NodeRunner.Setup(first.node(), start.peers(), start.args(), first.incarnation(),
                state.lastLamport, first.seq(), crashedIncarnation);
        Platform platform = twins == null ? state.twin : twins.platform(first.node(), first.incarnation(), state.twin);
        TraceSink sink = twins == null ? state.twin : twins.sink(first.node(), state.twin);
        state.runner = new NodeRunner(node, setup, platform, codec, sink);
        state.cutShort = false;
        runHandler(state, first, state.runner::start);
    }

    private Node instantiate(NodeState state, String className) {
        try {
            Class<?> type = Class.forName(className, true, options.classLoader());
            return (Node) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            throw new ReplayException(state.stream.origin() + ": cannot instantiate node " + state.stream.node()
                    + " of class " + className + " (is it on the classpath, a Node, with a public no-argument"
                    + " constructor?): " + e, e);
        }
    }

    private void runHandler(NodeState state, TraceEvent first, Runnable call) {
        state.dispatch = first;
        state.dispatchClockPending = true;
        long seqBefore = state.nextSeq;
        try {
            call.run();
        } catch (Stop stop) {
            return; // a divergence was recorded, or the recording ended inside this handler (a kill)
        } finally {
            state.dispatch = null;
        }
        if (state.nextSeq == seqBefore) {
            // NodeRunner ignores a timer it has not got pending, so nothing was produced.
            String actual = first.event() instanceof Event.TimerFired timer
                    ? "the node has no pending timer " + timer.timerId() + " (never set, or cancelled)"
                    : "the node produced no entry";
            diverge(state, first.seq(), first.lamport(), describe(first), actual);
            return;
        }
        TraceEvent next = state.expectedAt(state.nextSeq);
        if (next != null && !beginsHandler(next, state)) {
            diverge(state, next.seq(), next.lamport(), describe(next),
                    "the handler returned (the recorded handler did more)");
        }
    }

    /** Whether {@code entry}, the next one after a handler, legitimately begins another handler. */
    private static boolean beginsHandler(TraceEvent entry, NodeState state) {
        return switch (entry.event()) {
            case Event.Receive r -> true;
            case Event.TimerFired t -> true;
            case Event.Crash c -> true;
            case Event.Start s -> entry.incarnation() != state.runner.incarnation();
            default -> false;
        };
    }

    void diverge(NodeState state, long seq, long lamport, String expected, String actual) {
        int incarnation = state.runner != null ? state.runner.incarnation() : 0;
        divergences.add(new Divergence(state.stream.node(), incarnation, seq, lamport, expected, actual,
                List.copyOf(state.recent)));
        state.skipped = true;
    }

    /** An entry as {@code deja dump} prints it: messages and timer tags as JSON (decoded without their classes). */
    static String describe(TraceEvent entry) {
        return entry == null ? "the end of the log" : EventJson.toText(entry, DUMP_CODEC).strip();
    }

    /** Thrown out of a handler to abandon it; an Error so that NodeRunner's catch of handler failures lets it pass. */
    static final class Stop extends Error {
        Stop() {
            super(null, null, false, false);
        }
    }

    /** Replay state of one node, and the replay twin of its platform and trace sink. */
    final class NodeState {
        final NodeStream stream;
        final ReplayPlatform twin = new ReplayPlatform(this, ReplayEngine.this::diverge, options.nodeOutput());
        final ArrayDeque<TraceEvent> recent = new ArrayDeque<>(Divergence.RECENT_EVENTS);
        NodeRunner runner;
        /** The seq of the next entry the node must produce; every entry before it was checked. */
        long nextSeq;
        long lastLamport;
        TraceEvent dispatch;
        boolean dispatchClockPending;
        boolean skipped;
        boolean cutShort;

        NodeState(NodeStream stream) {
            this.stream = stream;
        }

        /** The recorded entry with {@code seq} during a handler: the dispatch entry or one not yet merged. */
        TraceEvent expectedAt(long seq) {
            TraceEvent anchor = dispatch != null ? dispatch : null;
            if (anchor != null && seq == anchor.seq()) {
                return anchor;
            }
            TraceEvent head = stream.peek(0);
            if (head == null) {
                return null;
            }
            return stream.peek(Math.toIntExact(seq - head.seq()));
        }

        void matched(TraceEvent recorded) {
            if (recent.size() == Divergence.RECENT_EVENTS) {
                recent.removeFirst();
            }
            recent.addLast(recorded);
            nextSeq = recorded.seq() + 1;
        }
    }

    /** The live view handed to listeners. */
    private final class State implements ReplayState {
        @Override
        public SortedMap<NodeId, Node> nodes() {
            SortedMap<NodeId, Node> live = new TreeMap<>();
            states.forEach((id, state) -> {
                if (state.runner != null && !state.skipped) {
                    live.put(id, state.runner.node());
                }
            });
            return Collections.unmodifiableSortedMap(live);
        }

        @Override
        public Optional<Node> node(NodeId node) {
            NodeState state = states.get(Objects.requireNonNull(node, "node"));
            return state == null || state.runner == null || state.skipped ? Optional.empty()
                    : Optional.of(state.runner.node());
        }

        @Override
        public int incarnation(NodeId node) {
            NodeState state = states.get(Objects.requireNonNull(node, "node"));
            return state == null || state.runner == null ? 0 : state.runner.incarnation();
        }
    }
}
