package dev.deja.view.internal;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayListener;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.EventKind;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node's state right after an event, by replaying the trace: the live node objects are rendered into
 * {@link ObjectTree}s at the handler call that contains the event, and at the node's handler call before it
 * (for the difference).
 *
 * <p>What makes it fast: one replay is kept paused where it last stopped. A later event is reached by letting
 * it run on; after answering, it runs {@value #AHEAD} positions further in advance. While it runs, the state of
 * every node at every handler call within {@value #WINDOW} positions before the event asked for is rendered
 * and kept (up to {@value #CACHE_SIZE} trees, least recently used dropped), so stepping back and forth near
 * an event is answered from memory. Node objects cannot be restored to an earlier point, so an event before
 * the paused replay that is not remembered costs a new replay from the start.
 *
 * <p>Threading: requests may come from any thread; they are served one at a time on a worker thread, and a
 * request superseded by a newer one before it started is skipped (its future completes with empty). The
 * replay runs on its own thread, paused inside its listener.
 */
final class StateService implements AutoCloseable {
    static final int WINDOW = 2_000;
    static final int AHEAD = 400;
    static final int CACHE_SIZE = 20_000;

    /**
     * A node's state at one event.
     *
     * @param position       the event asked about
     * @param handler        the position of the handler call containing it (its state is the state after it)
     * @param after          the node's state after that handler call; null when the node was not running
     * @param previous       the position of the node's handler call before, or -1 if there is none
     * @param before         the node's state after the previous handler call, null if none or not running
     * @param fromCache      whether both states were remembered, with no replay
     * @param replayedTo     how far the replay had to run (the last position it processed)
     * @param took           how long answering took
     * @param problem        why a state is missing, if one is
     */
    record NodeState(int position, int handler, ObjectTree after, int previous, ObjectTree before, boolean fromCache,
                     long replayedTo, Duration took, Optional<String> problem) {
    }

    private final Trace trace;
    private final TraceModel model;
    private final ClassLoader classLoader;
    private final int window;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "deja-view-state");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger latestRequest = new AtomicInteger();
    /** Rendered states by handler position; guarded by itself. */
    private final Map<Integer, ObjectTree> cache = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, ObjectTree> eldest) {
            return size() > CACHE_SIZE;
        }
    };
    /** Handler positions where the node was not running (rendered as absent). */
    private static final ObjectTree NOT_RUNNING = ObjectTree.leaf("", "", "(not running)");
    private ReplayRun run;
    private long replaysStarted;

    StateService(Trace trace, TraceModel model, ClassLoader classLoader) {
        this(trace, model, classLoader, WINDOW);
    }

    /** With {@code window} positions of states remembered behind each request (tests use a small one). */
    StateService(Trace trace, TraceModel model, ClassLoader classLoader, int window) {
        this.trace = trace;
        this.model = model;
        this.classLoader = classLoader;
        this.window = window;
    }

    /** How many replays from the start were needed so far (for tests and the status line). */
    synchronized long replaysStarted() {
        return replaysStarted;
    }

    /** The state of {@code position}'s node after it; empty if a newer request superseded this one first. */
    CompletableFuture<Optional<NodeState>> request(int position) {
        int ticket = latestRequest.incrementAndGet();
        CompletableFuture<Optional<NodeState>> result = new CompletableFuture<>();
        worker.execute(() -> {
            if (latestRequest.get() != ticket) {
                result.complete(Optional.empty());
                return;
            }
            try {
                result.complete(Optional.of(compute(position)));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** The position of the handler call that contains {@code position}: the replay renders state there. */
    int handlerOf(int position) {
        int at = position;
        while (at >= 0 && !startsHandler(at)) {
            at = model.previousOnLane(at);
        }
        return at;
    }

    /**
     * Whether the replayer starts a handler at {@code position}: a receive, a timer, a crash (which starts the
     * next incarnation) or a start that does not follow a crash.
     */
    private boolean startsHandler(int position) {
        EventKind type = model.type(position);
        if (type == EventKind.START) {
            int previous = model.previousOnLane(position);
            return previous < 0 || model.type(previous) != EventKind.CRASH;
        }
        return type == EventKind.RECEIVE || type == EventKind.TIMER || type == EventKind.CRASH;
    }

    private ObjectTree cached(int handler) {
        synchronized (cache) {
            return cache.get(handler);
        }
    }

    private NodeState compute(int position) {
        if (position < 0 || position >= model.size()) {
            throw new IllegalArgumentException("position " + position + " is outside the trace (0.." + (model.size() - 1) + ")");
        }
        long start = System.nanoTime();
        int handler = handlerOf(position);
        if (handler < 0) {
            return new NodeState(position, -1, null, -1, null, true, -1, Duration.ofNanos(System.nanoTime() - start),
                    Optional.of("the node has not started at this position"));
        }
        int beforeHandler = model.previousOnLane(handler);
        int previous = beforeHandler < 0 ? -1 : handlerOf(beforeHandler);
        boolean fromCache = cached(handler) != null && (previous < 0 || cached(previous) != null);
        long reached = -1;
        String failure = null;
        if (!fromCache) {
            ReplayRun current = replayTo(previous, handler);
            reached = current.processed();
            failure = current.failureMessage();
        }
        ObjectTree after = cached(handler);
        ObjectTree before = previous >= 0 ? cached(previous) : null;
        Optional<String> problem = Optional.empty();
        if (after == null) {
            NodeId node = model.nodes().get(model.laneOf(position));
            problem = Optional.of("the replay did not reach position " + handler + " of " + node
                    + (failure != null ? ": " + failure : " (see deja replay " + trace.directory() + ")"));
        }
        synchronized (this) {
            if (run != null) {
                run.pauseAt(handler + AHEAD); // run on in advance, so stepping forward is answered from memory
            }
        }
        return new NodeState(position, handler, after == NOT_RUNNING ? null : after, previous,
                before == NOT_RUNNING ? null : before, fromCache, reached, Duration.ofNanos(System.nanoTime() - start), problem);
    }

    /**
     * Makes the replay render the states at {@code previous} (if not -1) and {@code handler}, whichever are not
     * remembered: the paused replay runs on if it has not passed them, else a new replay starts from the
     * beginning. States from {@code window} positions before the earliest missing one are kept.
     */
    private ReplayRun replayTo(int previous, int handler) {
        int firstMissing = previous >= 0 && cached(previous) == null ? previous : handler;
        ReplayRun current;
        synchronized (this) {
            boolean passed = run == null || run.hasEnded()
                    || (previous >= 0 && cached(previous) == null && run.processed() >= previous)
                    || (cached(handler) == null && run.processed() >= handler);
            if (passed) {
                if (run != null) {
                    run.abort();
                }
                replaysStarted++;
                run = new ReplayRun(Math.max(0, firstMissing - window));
                run.start();
            } else {
                run.keepFrom(Math.max(0, firstMissing - window));
            }
            current = run;
        }
        current.runTo(handler);
        return current;
    }

    @Override
    public synchronized void close() {
        if (run != null) {
            run.abort();
        }
        worker.shutdownNow();
    }

    /** Thrown from the listener to abandon a replay; an Error so no handler-failure catch swallows it. */
    private static final class Abort extends Error {
        Abort() {
            super(null, null, false, false);
        }
    }

    /** One replay from the start, on its own thread, paused in its listener at {@link #pauseAt}. */
    private final class ReplayRun implements ReplayListener {
        private final Thread thread;
        private long pauseAt = -1;
        private long processed = -1;
        private long keepFrom;
        private boolean finished;
        private boolean aborted;
        private String failure;

        ReplayRun(long keepFrom) {
            this.keepFrom = keepFrom;
            this.thread = new Thread(this::replay, "deja-view-replay");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void replay() {
            try {
                ReplayResult result = Replayer.replay(trace, Replayer.Options.defaults().withClassLoader(classLoader)
                        .withKeepGoing(true).withPartial(true).withListener(this));
                if (!result.divergences().isEmpty()) {
                    synchronized (this) {
                        failure = "the replay diverged: " + result.divergences().getFirst().describe();
                    }
                }
            } catch (Abort abort) {
                // abandoned for a replay from the start
            } catch (RuntimeException | Error e) {
                synchronized (this) {
                    failure = String.valueOf(e.getMessage());
                }
            } finally {
                synchronized (this) {
                    finished = true;
                    notifyAll();
                }
            }
        }

        @Override
        public void afterEvent(dev.deja.replay.ReplayedEvent event, long position, dev.deja.replay.ReplayState state) {
            long keep;
            synchronized (this) {
                if (aborted) {
                    throw new Abort();
                }
                keep = keepFrom;
            }
            if (event.startedHandler() && position >= keep) {
                NodeId node = event.entry().node();
                Optional<Node> live = state.node(node);
                ObjectTree tree = live.isPresent() ? ObjectTrees.render(node.value(), live.get()) : NOT_RUNNING;
                synchronized (cache) {
                    cache.put((int) position, tree);
                }
            }
            synchronized (this) {
                processed = position;
                notifyAll();
                while (position >= pauseAt && !aborted) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new Abort();
                    }
                }
                if (aborted) {
                    throw new Abort();
                }
            }
        }

        synchronized long processed() {
            return processed;
        }

        synchronized boolean hasEnded() {
            return finished;
        }

        synchronized String failureMessage() {
            return failure;
        }

        /** Renders states from {@code position} on (earlier ones have passed already). */
        synchronized void keepFrom(long position) {
            keepFrom = position;
        }

        synchronized void pauseAt(long position) {
            if (position > pauseAt) {
                pauseAt = position;
                notifyAll();
            }
        }

        /** Lets the replay run until it has processed {@code target} or ended. */
        synchronized void runTo(long target) {
            pauseAt(target);
            while (processed < target && !finished) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while replaying to position " + target, e);
                }
            }
        }

        synchronized void abort() {
            aborted = true;
            notifyAll();
        }
    }
}
