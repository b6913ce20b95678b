package dev.deja.explore.internal;

import dev.deja.explore.Exploration;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.Finding;
import dev.deja.explore.Strategy;
import dev.deja.explore.WorkUnit;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.trace.Event;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One exploration: runs paths on the workers until the strategy is exhausted, the path limit or time budget is
 * reached, or it is stopped, and merges what the paths found. Randomized strategies give path {@code n} the seed
 * {@code mix(seed, n)} and take path numbers from one counter, so that with a path limit the same paths run
 * whatever the number of workers, and the shortest violating path (ties: the lowest number) is the same. dfs and
 * dpor walk one tree on one worker, or with several workers split it into work units under prefixes of answers
 * ({@link Frontier}) that the workers take from one queue: dfs per iteration of its depth bound, with one map of
 * states seen shared by all workers; dpor once.
 *
 * <p>{@link #counters()} may be read from any thread while {@link #run()} runs.
 */
public final class ExplorationRun implements Exploration {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final Explorer.Options options;
    private final Simulator.Exploration exploration;
    private final String scriptText;
    private final Set<Long> distinct = ConcurrentHashMap.newKeySet();
    private final AtomicLong nextPath = new AtomicLong();
    private final AtomicLong paths = new AtomicLong();
    private final AtomicLong steps = new AtomicLong();
    private final AtomicLong visited = new AtomicLong();
    private final AtomicLong deepest = new AtomicLong();
    private final AtomicLong cpuNanos = new AtomicLong();
    private final AtomicLong safetyPaths = new AtomicLong();
    private final AtomicBoolean firstFound = new AtomicBoolean();
    private final Map<String, Finding> best = new LinkedHashMap<>();
    private final Map<String, Long> counts = new LinkedHashMap<>();
    /** Per eventually predicate: paths judged, suspected, and live by each of {@link #depths}. */
    private final Map<String, long[]> liveness = new LinkedHashMap<>();
    private final Map<String, Long> nonLiveFrom = new LinkedHashMap<>();
    private final long[] depths;
    private volatile List<String> predicates = List.of();
    private volatile String search = "";
    private volatile boolean exhausted;
    private long deadlineNanos;
    private long startNanos;

    public ExplorationRun(SimulationSettings settings, ExploreSettings explore, Explorer.Options options) {
        this.settings = settings;
        this.explore = explore;
        this.options = options;
        this.depths = dev.deja.explore.Liveness.depths(explore.maxDepth());
        this.exploration = new Simulator.Exploration(explore.windowMillis(),
                explore.faults().maxCrashes() > 0, explore.faults().maxPartitions() > 0, Explorer.ISOLATION_MILLIS);
        if (options.script().isPresent()) {
            try {
                this.scriptText = Files.readString(options.script().get(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read the script " + options.script().get() + ": " + e.getMessage(), e);
            }
        } else {
            this.scriptText = null;
        }
    }

    @Override
    public Counters counters() {
        return new Counters(paths.get(), steps.get(), distinct.size(), deepest.get(), safetyPaths.get(),
                Duration.ofNanos(startNanos == 0 ? 0 : System.nanoTime() - startNanos));
    }

    @Override
    public ExploreReport run() {
        startNanos = System.nanoTime();
        deadlineNanos = explore.budget() == null ? Long.MAX_VALUE : startNanos + explore.budget().toNanos();
        boolean hash = explore.hashStates() || !explore.strategy().randomized();
        int workers = explore.workers();
        if (!explore.strategy().randomized() && workers > 1) {
            runSplit(hash, workers);
            return report(hash, workers);
        }
        long expectedSteps = explore.strategy() == Strategy.PCT ? probeLength() : 0;
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            Thread thread = Thread.ofPlatform().name("deja-explore-" + w).start(() -> {
                long cpuStart = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                try {
                    work(hash, expectedSteps);
                    cpuNanos.addAndGet(java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                            - cpuStart);
                } catch (RuntimeException | Error e) {
                    synchronized (failures) {
                        failures.add(e instanceof RuntimeException r ? r : new RuntimeException(e));
                    }
                    options.stop().set(true);
                }
            });
            threads.add(thread);
        }
        joinAll(threads);
        if (!failures.isEmpty()) {
            throw failures.getFirst();
        }
        return report(hash, workers);
    }

    /** Waits for every worker; an interrupt instead asks the search to stop and stays set for the caller. */
    private void joinAll(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                options.stop().set(true);
                Thread.currentThread().interrupt();
            }
        }
    }

    private ExploreReport report(boolean hash, int workers) {
        ExploreReport.Ending ending;
        if (firstFound.get() && explore.stopAtFirst()) {
            ending = ExploreReport.Ending.FIRST_VIOLATION;
        } else if (exhausted) {
            ending = ExploreReport.Ending.EXHAUSTED;
        } else if (options.stop().get()) {
            ending = ExploreReport.Ending.INTERRUPTED;
        } else if (paths.get() >= explore.maxPaths()) {
            ending = ExploreReport.Ending.PATH_LIMIT;
        } else {
            ending = ExploreReport.Ending.BUDGET;
        }
        List<Finding> findings = new ArrayList<>();
        synchronized (best) {
            for (Map.Entry<String, Finding> entry : best.entrySet()) {
                findings.add(entry.getValue().withPaths(counts.get(entry.getKey())));
            }
        }
        findings.sort(Comparator.comparing(Finding::kind).thenComparing(f -> predicates.indexOf(f.predicate())));
        List<dev.deja.explore.Liveness> live = new ArrayList<>();
        synchronized (best) {
            for (Map.Entry<String, long[]> entry : liveness.entrySet()) {
                long[] counted = entry.getValue();
                List<dev.deja.explore.Liveness.DepthShare> shares = new ArrayList<>();
                for (int i = 0; i < depths.length; i++) {
                    shares.add(new dev.deja.explore.Liveness.DepthShare(depths[i], counted[2 + i]));
                }
                live.add(new dev.deja.explore.Liveness(entry.getKey(), counted[0], shares, counted[1],
                        nonLiveFrom.getOrDefault(entry.getKey(), -1L), Optional.empty()));
            }
        }
        live.sort(Comparator.comparing(l -> predicates.indexOf(l.predicate())));
        return new ExploreReport(explore.strategy(), explore.seed(), workers, paths.get(), steps.get(),
                hash ? visited.get() : 0, hash ? distinct.size() : 0, deepest.get(),
                Duration.ofNanos(System.nanoTime() - startNanos), ending, search, predicates, findings,
                Duration.ofNanos(cpuNanos.get()), live);
    }

    /** One work unit of a split tree search, under one iteration's depth bound. */
    private record Task(WorkUnit unit, int bound, CountDownLatch done) {
    }

    private static final Task END = new Task(null, 0, null);

    /**
     * dfs and dpor on several workers: this thread splits the tree into work units (for dfs once per iteration of
     * the depth bound) and waits for the workers, which take units from one queue, to finish each batch.
     */
    private void runSplit(boolean hash, int workers) {
        boolean dfs = explore.strategy() == Strategy.DFS;
        BlockingQueue<Task> queue = new LinkedBlockingQueue<>();
        List<RuntimeException> failures = Collections.synchronizedList(new ArrayList<>());
        Map<Long, Integer> seen = new ConcurrentHashMap<>();
        AtomicBoolean cut = new AtomicBoolean();
        AtomicBoolean incomplete = new AtomicBoolean();
        AtomicLong pruned = new AtomicLong();
        AtomicLong redundant = new AtomicLong();
        AtomicLong races = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            threads.add(Thread.ofPlatform().name("deja-explore-" + w).start(() -> {
                long cpuStart = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                LiveMonitor monitor = null;
                PathRunner runner = null;
                try {
                    monitor = scriptText == null ? null : new LiveMonitor(scriptText, options.script().get().toString(),
                            options.classLoader(), options.predicateTimeout(), options.scriptOutput());
                    if (monitor != null) {
                        predicates = monitor.predicates();
                    }
                    runner = new PathRunner(settings, explore, exploration, options.classLoader(), monitor, hash,
                            distinct, this::stopping).startingFrom(options.start());
                } catch (RuntimeException | Error e) {
                    failures.add(e instanceof RuntimeException r ? r : new RuntimeException(e));
                    options.stop().set(true);
                }
                try {
                    while (true) {
                        Task task;
                        try {
                            task = queue.take();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                        if (task == END) {
                            break;
                        }
                        try {
                            if (runner == null || stopping()) {
                                incomplete.set(true);
                                continue;
                            }
                            List<Integer> prefix = Frontier.answers(task.unit());
                            TreeSearch tree = dfs ? new DepthFirstSearch(settings, explore, prefix, task.bound(), seen)
                                    : new DporSearch(settings, explore, prefix);
                            if (!runUnit(tree, runner)) {
                                incomplete.set(true);
                            }
                            if (tree instanceof DepthFirstSearch search) {
                                pruned.addAndGet(search.pruned());
                                if (search.cutByBound()) {
                                    cut.set(true);
                                }
                            } else if (tree instanceof DporSearch search) {
                                redundant.addAndGet(search.redundant());
                                races.addAndGet(search.races());
                            }
                        } catch (RuntimeException | Error e) {
                            failures.add(e instanceof RuntimeException r ? r : new RuntimeException(e));
                            options.stop().set(true);
                        } finally {
                            task.done().countDown();
                        }
                    }
                } finally {
                    if (monitor != null) {
                        monitor.close();
                    }
                    cpuNanos.addAndGet(java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                            - cpuStart);
                }
            }));
        }
        Frontier frontier = new Frontier(settings, explore, exploration, options.classLoader(), options.start());
        int bound = dfs ? explore.searchDepth() : Integer.MAX_VALUE;
        int iterations = 0;
        long units = 0;
        long lastUnits = 0;
        try {
            while (!stopping()) {
                iterations++;
                seen.clear();
                cut.set(false);
                // Enough units that a worker finishing early finds another; never past the bound (a random walk there).
                List<WorkUnit> split = frontier.split(workers * 8, Math.min(bound, 16), this::stopping);
                CountDownLatch done = new CountDownLatch(split.size());
                for (WorkUnit unit : split) {
                    queue.add(new Task(unit, bound, done));
                }
                units += split.size();
                lastUnits = split.size();
                done.await();
                if (stopping() || incomplete.get() || !failures.isEmpty()) {
                    break;
                }
                if (!dfs || !cut.get()) {
                    exhausted = true;
                    break;
                }
                bound++;
            }
        } catch (InterruptedException e) {
            options.stop().set(true);
            Thread.currentThread().interrupt();
        } finally {
            for (int w = 0; w < workers; w++) {
                queue.add(END);
            }
            joinAll(threads);
        }
        if (!failures.isEmpty()) {
            throw failures.getFirst();
        }
        String split = "split among " + workers + " workers into " + units + " work unit(s)"
                + (dfs ? " (" + lastUnits + " in the last iteration)" : "") + " by " + frontier.probes() + " probe run(s)";
        search = dfs ? "depth bound " + bound + " after " + iterations + " iteration(s); " + pruned.get()
                + " path(s) ended at a state already searched (one map of states shared by the workers); " + split
                : races.get() + " race(s) reversed or covered; " + redundant.get()
                + " path(s) ended as redundant by sleep sets; " + split;
    }

    /** Runs one work unit's paths; false when it stopped before its subtree was done (stop, budget, path limit). */
    private boolean runUnit(TreeSearch tree, PathRunner runner) {
        while (true) {
            if (stopping()) {
                return false;
            }
            PathSource source = tree.nextPath();
            if (source == null) {
                return true;
            }
            long path = nextPath.getAndIncrement();
            if (path >= explore.maxPaths()) {
                return false;
            }
            PathRunner.Result result = runner.run(path, source);
            tree.pathEnded(result.steps());
            record(result);
        }
    }

    /** PCT's k: the length of one random walk from the seed, so that change points fall within a path. */
    private long probeLength() {
        PathRunner runner = new PathRunner(settings, explore, exploration, options.classLoader(), null, false,
                distinct, () -> false).startingFrom(options.start());
        long length = runner.run(-1, new RandomizedSources.RandomWalk(settings, explore, mix(explore.seed(), -1))).steps();
        return Math.max(1, length);
    }

    private boolean stopping() {
        return options.stop().get() || System.nanoTime() > deadlineNanos
                || (explore.stopAtFirst() && firstFound.get());
    }

    private void work(boolean hash, long expectedSteps) {
        LiveMonitor monitor = scriptText == null ? null : new LiveMonitor(scriptText, options.script().get().toString(),
                options.classLoader(), options.predicateTimeout(), options.scriptOutput());
        try {
            if (monitor != null) {
                predicates = monitor.predicates();
            }
            PathRunner runner = new PathRunner(settings, explore, exploration, options.classLoader(), monitor, hash,
                    distinct, this::stopping).startingFrom(options.start());
            if (explore.strategy().randomized()) {
                while (!stopping()) {
                    long path = nextPath.getAndIncrement();
                    if (path >= explore.maxPaths()) {
                        break;
                    }
                    long seed = mix(explore.seed(), path);
                    PathSource source = switch (explore.strategy()) {
                        case RANDOM -> new RandomizedSources.RandomWalk(settings, explore, seed);
                        case PCT -> new RandomizedSources.Pct(settings, explore, seed, expectedSteps);
                        case POS -> new RandomizedSources.Pos(settings, explore, seed);
                        default -> throw new IllegalStateException(explore.strategy() + " is not randomized");
                    };
                    record(runner.run(path, source));
                }
            } else {
                TreeSearch tree = explore.strategy() == Strategy.DFS ? new DepthFirstSearch(settings, explore)
                        : new DporSearch(settings, explore);
                long path = 0;
                while (!stopping() && path < explore.maxPaths()) {
                    PathSource source = tree.nextPath();
                    if (source == null) {
                        break;
                    }
                    PathRunner.Result result = runner.run(path++, source);
                    tree.pathEnded(result.steps());
                    record(result);
                }
                exhausted = tree.exhausted();
                search = tree.summary();
            }
        } finally {
            if (monitor != null) {
                monitor.close();
            }
        }
    }

    private void record(PathRunner.Result result) {
        paths.incrementAndGet();
        steps.addAndGet(result.steps());
        visited.addAndGet(result.statesVisited());
        deepest.accumulateAndGet(result.steps(), Math::max);
        if (result.violation().isPresent()) {
            safetyPaths.incrementAndGet();
            firstFound.set(true);
            LiveMonitor.Hit hit = result.violation().get();
            offer(Finding.Kind.SAFETY, hit, result, result.scheduleUpTo(hit, exploration));
        }
        for (LiveMonitor.Hit error : result.errors()) {
            offer(Finding.Kind.ERROR, error, result, result.scheduleUpTo(error, exploration));
        }
        if (result.violation().isEmpty()) {
            synchronized (best) {
                for (Map.Entry<String, Long> open : result.openAtEnd().entrySet()) {
                    long[] counted = liveness.computeIfAbsent(open.getKey(), k -> new long[2 + depths.length]);
                    counted[0]++;
                    counted[1]++;
                }
                for (Map.Entry<String, Long> held : result.liveFrom().entrySet()) {
                    long[] counted = liveness.computeIfAbsent(held.getKey(), k -> new long[2 + depths.length]);
                    counted[0]++;
                    for (int i = 0; i < depths.length; i++) {
                        if (held.getValue() <= depths[i]) {
                            counted[2 + i]++;
                        }
                    }
                }
            }
        }
        for (Map.Entry<String, Long> open : result.openAtEnd().entrySet()) {
            // The whole path's schedule is built only when this path is the shortest so far: most paths are not.
            String key = Finding.Kind.EVENTUALLY_OPEN_AT_END + " " + open.getKey();
            synchronized (best) {
                counts.merge(key, 1L, Long::sum);
                Finding current = best.get(key);
                if (current == null || result.steps() < current.steps()
                        || (result.steps() == current.steps() && result.path() < current.path())) {
                    Schedule whole = result.recorder().schedule(result.recorder().size(), exploration, result.steps(),
                            result.ending() == SimulationResult.Ending.STOPPED);
                    // Steps are counted from 1 here, as the critical transition and the findings table count them.
                    nonLiveFrom.put(open.getKey(), open.getValue() + 1);
                    best.put(key, new Finding(open.getKey(), Finding.Kind.EVENTUALLY_OPEN_AT_END, 1, result.path(),
                            result.steps(), "", "false from step " + (open.getValue() + 1) + " to the end", 0, -1, -1, "",
                            Map.of(), whole, Optional.empty()));
                }
            }
        }
    }

    private void offer(Finding.Kind kind, LiveMonitor.Hit hit, PathRunner.Result result, Schedule schedule) {
        TraceEvent entry = hit.entry();
        offer(new Finding(hit.predicate(), kind, 1, result.path(), hit.step() + 1, entry.node().value(), describe(entry),
                entry.incarnation(), entry.seq(), entry.lamport(), hit.message(), hit.aux(), schedule, Optional.empty()));
    }

    private void offer(Finding finding) {
        String key = finding.kind() + " " + finding.predicate();
        synchronized (best) {
            counts.merge(key, 1L, Long::sum);
            Finding current = best.get(key);
            if (current == null || finding.steps() < current.steps()
                    || (finding.steps() == current.steps() && finding.path() < current.path())) {
                best.put(key, finding);
            }
        }
    }

    /** The event in words, e.g. {@code receive Accepted from n2}. */
    static String describe(TraceEvent entry) {
        if (entry.event() instanceof Event.Receive receive) {
            return "receive " + receive.message().simpleType() + " from " + receive.from();
        }
        return entry.event().typeName();
    }

    /** The seed of path {@code path}. */
    static long mix(long seed, long path) {
        long x = seed * 0x9E3779B97F4A7C15L + path;
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 33;
        x *= 0xC4CEB9FE1A85EC53L;
        return x ^ (x >>> 33);
    }
}
