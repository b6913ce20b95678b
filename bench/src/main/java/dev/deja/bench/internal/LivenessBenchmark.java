package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.explore.CriticalTransition;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.Liveness;
import dev.deja.explore.RecordedLiveness;
import dev.deja.explore.Strategy;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The liveness search's costs, measured side by side in one JVM on one worker, with MaceMC's liveness predicates
 * ({@code scripts/liveness/}) evaluated after every step:
 * <ul>
 *   <li>random walks/s to dmax ({@value #DMAX} steps; runs bounded by steps alone) on RandTree (4 nodes, OneRoot) and
 *   Chord (5 nodes, AllNodes): each explored path is one such walk;</li>
 *   <li>the time to a critical transition: Chord with {@code succ-succ-hash}, one path to dmax, then the search with
 *   {@value #WALKS} walks per prefix (it names the node failure, C1);</li>
 *   <li>the same for RandTree in MaceMC's scenario ({@code topology=two-trees}, 5 nodes, {@code no-recovery-timer},
 *   a {@value #TWO_TREES_WINDOW_MILLIS} ms timer window): walks/s to dmax of that configuration, and the time to its
 *   critical transition (the bootstrap's self-join, C1).</li>
 * </ul>
 * Each walk figure follows a warm-up run of the same kind (the Python context and the predicate JIT warm up once);
 * the critical transition is timed from a cold start of its own Python contexts, with the JVM's CPU time beside it.
 */
final class LivenessBenchmark {
    static final int DMAX = 2000;
    static final int WALKS = 10;
    /** The timer window the two-trees search needs for a nearest live run (docs/liveness.md). */
    static final long TWO_TREES_WINDOW_MILLIS = 20;
    private static final Path LIVENESS = Path.of("scripts", "liveness");
    private final Workspace workspace;

    LivenessBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        Path root = scriptRoot();
        out.put("dmax", DMAX);
        out.set("randtree_walks", walks(settings("randtree", 4, null), root.resolve(LIVENESS).resolve("randtree_one_root.py"), 6));
        out.set("chord_walks", walks(settings("chord", 5, null), root.resolve(LIVENESS).resolve("chord_all_nodes.py"), 4));
        out.set("chord_critical_transition", critical(settings("chord", 5, "succ-succ-hash"), 0,
                root.resolve(LIVENESS).resolve("chord_all_nodes.py")));
        Path oneRoot = root.resolve(LIVENESS).resolve("randtree_one_root.py");
        SimulationSettings twoTrees = twoTreesSettings();
        out.put("two_trees_window_ms", TWO_TREES_WINDOW_MILLIS);
        out.set("randtree_two_trees_walks", walks(twoTrees, TWO_TREES_WINDOW_MILLIS, oneRoot, 6));
        out.set("randtree_two_trees_critical_transition", critical(twoTrees, TWO_TREES_WINDOW_MILLIS, oneRoot));
        out.set("recorded_lock_server", recordedLockServer(root.resolve("scripts").resolve("lockserver.py")));
        return out;
    }

    /** Walks from the end of a recording, past its end. */
    static final int RECORDED_EXTRA_DEPTH = 600;
    static final int RECORDED_WALKS = 4;

    /**
     * {@code check --classify-liveness} on the lock server's livelock (3 nodes, seed 6, 4 s): what a walk from the
     * recorded end state costs, split at the hand-over. Each walk rebuilds the state by replaying the whole recording
     * (no snapshot) with the predicates evaluated over it, then walks on; the replay alone is measured too (no
     * predicates, each rebuild stopped before the first simulated step). CPU time of the walking thread.
     */
    private ObjectNode recordedLockServer(Path script) {
        SimulationSettings.Builder lock = ExampleSimulation.settings(Examples.byName("lockserver").orElseThrow(), 3,
                Optional.of("release-retry-livelock")).seed(6);
        SimulationSettings recordedSettings = lock.maxVirtualMillis(4000).build();
        Path recorded = workspace.path("liveness/lock");
        Simulator.run(recordedSettings, recorded, Workspace.options(recordedSettings));
        TraceStart.Recording recording = TraceStart.Recording.read(recorded);
        SimulationSettings walks = lock.stop(SimulationSettings.Stop.AT_LIMIT)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).build();
        TraceStart end = new TraceStart(recording.entries() - 1, recording);
        FromTraceBenchmark.rebuild(walks, end, 20); // warm-up
        double[] rebuild = FromTraceBenchmark.rebuild(walks, end, 20);
        CheckReport checked = Checker.check(recorded, script, Checker.Options.defaults().withReuseHistory(false),
                new InMemoryStateHistory());
        Violation open = checked.violations().stream().filter(Violation::openAtEnd).findFirst()
                .orElseThrow(() -> new IllegalStateException("the lock server's recording has no open span"));
        int dmax = (int) recording.handlerCalls() + RECORDED_EXTRA_DEPTH;
        ExploreSettings explore = ExploreSettings.builder().seed(1).workers(1).maxDepth(dmax).build();
        RecordedLiveness.Classification c = RecordedLiveness.classify(recording, open.predicate(), open.event().position(),
                walks, explore, RECORDED_WALKS, false, Explorer.Options.defaults().withScript(script));
        double prefixMs = c.cost().prefixCpuNanos() / 1e6 / c.walks();
        double walkMs = c.cost().walkCpuNanos() / 1e6 / c.walks();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("handler_calls", recording.handlerCalls());
        node.put("walks", c.walks());
        node.put("dmax", dmax);
        node.put("walk_steps", c.walkSteps());
        node.put("verdict", c.verdict().label());
        node.put("replay_only_cpu_ms_per_walk", Results.round(rebuild[1]));
        node.put("prefix_cpu_ms_per_walk", Results.round(prefixMs));
        node.put("walk_cpu_ms_per_walk", Results.round(walkMs));
        node.put("prefix_share", Results.round(prefixMs / Math.max(1e-9, prefixMs + walkMs)));
        workspace.progress().say("liveness from a recording: lock server, %d handler calls; per walk %.1f ms CPU "
                        + "rebuilding (%.1f ms of it replay alone), %.1f ms walking %d steps on; %s",
                recording.handlerCalls(), prefixMs, rebuild[1], walkMs, c.walkSteps() / Math.max(1, c.walks()),
                c.verdict().label());
        return node;
    }

    private static SimulationSettings settings(String example, int nodes, String bug) {
        return ExampleSimulation.settings(Examples.byName(example).orElseThrow(), nodes, Optional.ofNullable(bug)).seed(1)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).stop(SimulationSettings.Stop.AT_LIMIT)
                .build();
    }

    /** RandTree in MaceMC's scenario: 5 nodes, only the bootstrap knows the second tree, no recovery timer. */
    private static SimulationSettings twoTreesSettings() {
        return ExampleSimulation.settings(Examples.byName("randtree").orElseThrow(), 5, Optional.of("no-recovery-timer"),
                        Map.of("topology", "two-trees")).seed(1)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).stop(SimulationSettings.Stop.AT_LIMIT)
                .build();
    }

    private static ExploreSettings explore(long seed, long paths, int walks, long windowMillis) {
        return ExploreSettings.builder().strategy(Strategy.RANDOM).seed(seed).maxPaths(paths).maxDepth(DMAX).workers(1)
                .walks(walks).windowMillis(windowMillis).build();
    }

    private ObjectNode walks(SimulationSettings settings, Path script, int paths) {
        return walks(settings, 0, script, paths);
    }

    private ObjectNode walks(SimulationSettings settings, long windowMillis, Path script, int paths) {
        Explorer.Options options = Explorer.Options.defaults().withScript(script);
        Explorer.start(settings, explore(99, 1, 0, windowMillis), options).run(); // warm-up
        ExploreReport report = Explorer.start(settings, explore(1, paths, 0, windowMillis), options).run();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        double seconds = report.elapsed().toNanos() / 1e9;
        double cpu = report.cpu().toNanos() / 1e9;
        node.put("walks", report.paths());
        node.put("steps", report.steps());
        node.put("seconds", Results.round(seconds));
        node.put("cpu_seconds", Results.round(cpu));
        node.put("walks_per_s", Results.round(report.paths() / Math.max(1e-9, seconds)));
        node.put("walks_per_cpu_s", Results.round(report.paths() / Math.max(1e-9, cpu)));
        node.put("steps_per_s", Math.round(report.stepsPerSecond()));
        node.put("steps_per_cpu_s", Math.round(report.stepsPerCpuSecond()));
        workspace.progress().say("liveness walks (%s): %d walks of %d steps, %.2f walks/s (%.2f per CPU second)",
                script.getFileName(), report.paths(), DMAX, report.paths() / Math.max(1e-9, seconds),
                report.paths() / Math.max(1e-9, cpu));
        return node;
    }

    private ObjectNode critical(SimulationSettings settings, long windowMillis, Path script) {
        Explorer.Options options = Explorer.Options.defaults().withScript(script);
        ExploreSettings explore = explore(1, 1, WALKS, windowMillis);
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        ExploreReport report = Explorer.start(settings, explore, options).run();
        long explored = System.nanoTime();
        report = Explorer.searchLiveness(report, settings, explore, options);
        long end = System.nanoTime();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("walks_per_prefix", WALKS);
        node.put("explore_seconds", Results.round((explored - start) / 1e9));
        node.put("search_seconds", Results.round((end - explored) / 1e9));
        node.put("seconds", Results.round((end - start) / 1e9));
        node.put("process_cpu_seconds", Results.round((processCpuNanos() - cpuStart) / 1e9));
        Optional<CriticalTransition> found = report.liveness().stream().map(Liveness::critical).flatMap(Optional::stream)
                .findFirst();
        node.put("found", found.isPresent());
        found.ifPresent(c -> {
            node.put("verdict", c.verdict().label());
            node.put("step", c.step());
            node.put("node", c.node());
            node.put("event", c.event());
            node.put("walks", c.totalWalks());
            node.put("walk_steps", c.totalSteps());
            node.put("prefixes_probed", c.probes().size());
        });
        workspace.progress().say("liveness: %s critical transition %s in %.1f s (%.1f s exploring, "
                        + "%.1f s searching)", script.getFileName(), found.map(c -> c.verdict().label() + " at step " + c.step() + ", " + c.node()
                        + " " + c.event()).orElse("NOT found"), (end - start) / 1e9, (explored - start) / 1e9,
                (end - explored) / 1e9);
        return node;
    }

    /** CPU time of the whole JVM (walking threads, Python, the JIT compiler and GC), in nanoseconds. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }

    /** The directory holding {@code scripts/liveness/}: the working directory or one of its parents. */
    private static Path scriptRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (p.resolve(LIVENESS).resolve("chord_all_nodes.py").toFile().isFile()) {
                return p;
            }
        }
        throw new IllegalStateException("the liveness benchmark needs scripts/liveness/ in " + here + " or a parent");
    }
}
