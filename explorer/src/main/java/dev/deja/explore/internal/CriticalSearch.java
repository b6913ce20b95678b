package dev.deja.explore.internal;

import dev.deja.explore.CriticalTransition;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.LivenessSearch;
import dev.deja.explore.WalkOrigin;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * MaceMC's algorithm 3 over a {@link WalkOrigin}: probes prefixes of the violating run with up to K random walks
 * each, doubling the prefix from d_init until one is dead, then bisecting between the last recoverable and the first
 * dead one. Each worker is one thread with its own Python context, kept for the whole search.
 */
public final class CriticalSearch {
    private final WalkOrigin origin;
    private final LivenessSearch.Target target;
    private final ExploreSettings explore;
    private final int walks;
    private final Explorer.Options options;
    private final String scriptText;
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong walksRun = new AtomicLong();
    private final AtomicLong stepsRun = new AtomicLong();
    private final List<CriticalTransition.Probe> probed = new ArrayList<>();
    private final ConcurrentHashMap<Long, CriticalTransition.LiveWalk> liveWalks = new ConcurrentHashMap<>();
    private ExecutorService[] workers;
    private LiveMonitor[] monitors;
    private long startNanos;

    public CriticalSearch(WalkOrigin origin, LivenessSearch.Target target, ExploreSettings explore, int walks,
                          Explorer.Options options) {
        this.origin = origin;
        this.target = target;
        this.explore = explore;
        this.walks = walks;
        this.options = options;
        try {
            this.scriptText = Files.readString(options.script().orElseThrow(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the script " + options.script().get() + ": " + e.getMessage(), e);
        }
    }

    public LivenessSearch.Counters counters() {
        return new LivenessSearch.Counters(probes.get(), walksRun.get(), stepsRun.get(),
                Duration.ofNanos(startNanos == 0 ? 0 : System.nanoTime() - startNanos));
    }

    public CriticalTransition run() {
        startNanos = System.nanoTime();
        int count = Math.max(1, explore.workers());
        workers = new ExecutorService[count];
        monitors = new LiveMonitor[count];
        for (int w = 0; w < count; w++) {
            int index = w;
            workers[w] = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("deja-walk-" + index).unstarted(r));
        }
        try {
            List<Future<?>> started = new ArrayList<>();
            for (int w = 0; w < count; w++) {
                int index = w;
                started.add(workers[w].submit(() -> {
                    monitors[index] = new LiveMonitor(scriptText, options.script().get().toString(),
                            options.classLoader(), options.predicateTimeout(), options.scriptOutput());
                    if (!monitors[index].predicates().contains(target.predicate())) {
                        throw new IllegalArgumentException(options.script().get() + " has no predicate "
                                + target.predicate() + " (it has " + monitors[index].predicates() + ")");
                    }
                    return null;
                }));
            }
            await(started);
            return search();
        } finally {
            for (int w = 0; w < count; w++) {
                int index = w;
                workers[w].submit(() -> {
                    if (monitors[index] != null) {
                        monitors[index].close();
                    }
                });
                workers[w].shutdown();
            }
        }
    }

    /** Algorithm 3. */
    private CriticalTransition search() {
        long dmax = explore.maxDepth();
        long length = origin.steps();
        long dinit = Math.min(Math.max(1, target.nonLiveFrom()), Math.max(1, length));
        long previous = target.knownRecoverable();
        if (!probe(dinit).recovers()) {
            if (previous == dinit - 1) {
                return found(CriticalTransition.Verdict.C1_DEAD, dinit, previous);
            }
            return found(CriticalTransition.Verdict.C2_INCONCLUSIVE, dinit, previous);
        }
        previous = dinit;
        long current = dinit;
        while (true) {
            current = Math.min(2 * current, length);
            if (current > dmax / 2 || current == previous) {
                // No dead prefix early enough for walks to have had room (or the run itself recovers): raise dmax.
                return found(CriticalTransition.Verdict.C2_INCONCLUSIVE, current, previous);
            }
            if (!probe(current).recovers()) {
                break;
            }
            previous = current;
            if (options.stop().get()) {
                return found(CriticalTransition.Verdict.C2_INCONCLUSIVE, current, previous);
            }
        }
        while (current - previous > 1 && !options.stop().get()) {
            long middle = (previous + current) / 2;
            if (probe(middle).recovers()) {
                previous = middle;
            } else {
                current = middle;
            }
        }
        return found(current - previous == 1 ? CriticalTransition.Verdict.C1_DEAD
                : CriticalTransition.Verdict.C2_INCONCLUSIVE, current, previous);
    }

    private CriticalTransition found(CriticalTransition.Verdict verdict, long step, long lastRecoverable) {
        if (lastRecoverable >= 0 && !liveWalks.containsKey(lastRecoverable) && !options.stop().get()) {
            // Known recoverable without a walk (the state was live itself): walk from it for the nearest live run.
            probe(lastRecoverable);
        }
        String[] described = describe(step);
        Optional<CriticalTransition.LiveWalk> nearest = Optional.ofNullable(
                lastRecoverable < 0 ? null : liveWalks.get(lastRecoverable));
        List<CriticalTransition.Probe> list;
        synchronized (probed) {
            list = List.copyOf(probed);
        }
        return new CriticalTransition(target.predicate(), verdict, step, described[0], described[1], described[2],
                lastRecoverable, walks, explore.maxDepth(), target.nonLiveFrom(), list, origin.schedule(), nearest,
                Optional.empty());
    }

    /** Node, event and message of step number {@code step} (counting from 1) of the violating run. */
    private String[] describe(long step) {
        String[] out = {"", "", ""};
        if (step < 1 || step > origin.steps()) {
            return out;
        }
        origin.run(step, new RandomizedSources.RandomWalk(origin.settings(), explore, 0), (simulated, view) -> {
            if (simulated.step() == step - 1) {
                out[0] = simulated.node().value();
                if (simulated.entry() != null) {
                    out[1] = ExplorationRun.describe(simulated.entry());
                    if (simulated.entry().event() instanceof Event.Receive receive) {
                        out[2] = receive.message().simpleType();
                    } else if (simulated.entry().event() instanceof Event.TimerFired fired) {
                        out[1] = "timer " + tagText(fired.tag());
                    }
                } else {
                    out[1] = simulated.event().describe();
                    out[2] = simulated.event().messageType();
                }
                return false;
            }
            return true;
        }, options.classLoader());
        return out;
    }

    /** A timer's tag as a reader knows it: a text tag as it is, any other by its type. */
    private String tagText(Payload tag) {
        try {
            return MessageCodec.shared(options.classLoader()).decode(tag) instanceof String text ? text
                    : tag.simpleType();
        } catch (RuntimeException e) {
            return tag.simpleType(); // a tag class this loader cannot read: its type still names it
        }
    }

    /** Up to K walks from {@code prefix}, on every worker; stops at the lowest-numbered live walk. */
    private CriticalTransition.Probe probe(long prefix) {
        probes.incrementAndGet();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger firstLive = new AtomicInteger(Integer.MAX_VALUE);
        AtomicLong steps = new AtomicLong();
        ConcurrentHashMap<Integer, Walk> live = new ConcurrentHashMap<>();
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers.length; w++) {
            int index = w;
            running.add(workers[w].submit(() -> {
                while (!options.stop().get()) {
                    int i = next.getAndIncrement();
                    if (i >= walks || i > firstLive.get()) {
                        break;
                    }
                    Walk walk = walk(monitors[index], prefix, i, () -> i > firstLive.get() || options.stop().get());
                    walksRun.incrementAndGet();
                    steps.addAndGet(walk.steps);
                    stepsRun.addAndGet(walk.steps);
                    if (walk.liveAt >= 0) {
                        live.put(i, walk);
                        firstLive.accumulateAndGet(i, Math::min);
                    }
                }
                return null;
            }));
        }
        await(running);
        int first = firstLive.get();
        CriticalTransition.Probe result;
        if (first == Integer.MAX_VALUE) {
            result = new CriticalTransition.Probe(prefix, walks, 0, -1, steps.get());
        } else {
            Walk walk = live.get(first);
            result = new CriticalTransition.Probe(prefix, first + 1, 1, walk.liveAt + 1, steps.get());
            liveWalks.put(prefix, new CriticalTransition.LiveWalk(prefix, walk.liveAt + 1,
                    origin.schedule(prefix, walk.answers, walk.liveAt + 1), origin.start(prefix)));
        }
        synchronized (probed) {
            probed.add(result);
        }
        return result;
    }

    private record Walk(long steps, long liveAt, List<Schedule.Answer> answers) {
    }

    /** One walk: the origin's prefix, then random answers drawn from the seed, the prefix and the walk's number. */
    private Walk walk(LiveMonitor monitor, long prefix, int number, BooleanSupplier abort) {
        long seed = ExplorationRun.mix(ExplorationRun.mix(explore.seed(), prefix), number);
        Recorder recorder = new Recorder(new RandomizedSources.RandomWalk(origin.settings(), explore, seed));
        monitor.newRun();
        monitor.watch(target.predicate(), prefix);
        int[][] answersAfter = {new int[256]};
        long[] steps = {0};
        java.util.Map<dev.deja.node.NodeId, SimulatedStep> lastOfNode = new java.util.HashMap<>();
        StepObserver observer = new StepObserver() {
            /** A handler call replayed to rebuild a recorded start state: evaluated as it comes. */
            @Override
            public boolean replayedStep(SimulatedStep step, StepObserver.View view) {
                steps[0] = step.step() + 1;
                if (monitor.add(step, 0)) {
                    monitor.flush();
                }
                return true;
            }

            @Override
            public boolean afterStep(SimulatedStep step, StepObserver.View view) {
            steps[0] = step.step() + 1;
            if (step.step() < prefix) {
                // The prefix runs without evaluation; its end state is handed over as one step per node.
                if (step.recorded()) {
                    lastOfNode.put(step.node(), step);
                }
                if (step.step() == prefix - 1) {
                    List<SimulatedStep> last = new ArrayList<>(lastOfNode.values());
                    last.sort(java.util.Comparator.comparingLong(SimulatedStep::step));
                    monitor.addSnapshot(view.liveNodes(), last);
                }
                return !abort.getAsBoolean();
            }
            int at = (int) (step.step() - prefix);
            if (at >= answersAfter[0].length) {
                answersAfter[0] = Arrays.copyOf(answersAfter[0], answersAfter[0].length * 2);
            }
            answersAfter[0][at] = recorder.size();
            if (step.recorded() && monitor.add(step, recorder.size())) {
                monitor.flush();
                if (monitor.liveAt() >= 0) {
                    return false;
                }
            }
            return steps[0] < explore.maxDepth() && !abort.getAsBoolean();
            }
        };
        origin.run(prefix, recorder, observer, options.classLoader());
        if (monitor.liveAt() < 0) {
            monitor.flush();
        }
        long liveAt = monitor.liveAt();
        List<Schedule.Answer> answers = List.of();
        if (liveAt >= 0) {
            int given = answersAfter[0][(int) (liveAt - prefix)];
            answers = recorder.schedule(given, Simulator.Exploration.NONE, 0, true).answers();
        }
        return new Walk(steps[0], liveAt, answers);
    }

    private static void await(List<Future<?>> futures) {
        for (Future<?> future : futures) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}
