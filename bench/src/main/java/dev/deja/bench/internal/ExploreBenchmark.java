package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.FaultBudget;
import dev.deja.explore.Finding;
import dev.deja.explore.Strategy;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Exploration speed and effectiveness, measured side by side in one JVM:
 * <ul>
 *   <li>steps/s, steps per CPU second and paths/s of random walks on Paxos (seven nodes, the paper's 30% loss) and
 *   Chord (its default), without predicates and with the example's script evaluated after every step (one worker);</li>
 *   <li>the wall time to the first {@code global_consistency} violation of Paxos with the latest-response bug (three
 *   nodes, 30% loss, 1..100 ms delays) by {@code random}, {@code pct}, {@code pos} and {@code dpor} (one worker,
 *   stopping at the first violation), against a sweep of {@code deja simulate} seeds, each trace written and checked.</li>
 * </ul>
 * The machine's load is in the results; on a busy machine compare steps per CPU second.
 */
final class ExploreBenchmark {
    private static final Path PAXOS_SCRIPT = Path.of("scripts", "paxos.py");
    private static final Path CHORD_SCRIPT = Path.of("scripts", "chord.py");
    private final Workspace workspace;

    ExploreBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        Path root = scriptRoot();
        Example paxos = Examples.byName("paxos").orElseThrow();
        Example chord = Examples.byName("chord").orElseThrow();
        SimulationSettings paxosSettings = ExampleSimulation.settings(paxos, 7, Optional.empty()).seed(1)
                .dropProbability(0.3).delayMillis(1, 100).build();
        SimulationSettings chordSettings = ExampleSimulation.settings(chord, Optional.empty()).seed(1).build();
        out.set("paxos_plain", speed(paxosSettings, null, 200));
        out.set("paxos_predicates", speed(paxosSettings, root.resolve(PAXOS_SCRIPT), 50));
        out.set("chord_plain", speed(chordSettings, null, 20));
        out.set("chord_predicates", speed(chordSettings, root.resolve(CHORD_SCRIPT), 5));

        SimulationSettings buggy = ExampleSimulation.settings(paxos, 3, Optional.of("latest-response")).seed(1)
                .dropProbability(0.3).delayMillis(1, 100).build();
        ObjectNode first = out.putObject("first_latest_response_violation_s");
        for (Strategy strategy : new Strategy[] {Strategy.RANDOM, Strategy.PCT, Strategy.POS, Strategy.DPOR}) {
            first.set(strategy.cliName(), firstViolation(buggy, strategy, root.resolve(PAXOS_SCRIPT)));
        }
        first.set("simulate_seed_sweep", seedSweep(buggy, root.resolve(PAXOS_SCRIPT)));
        out.set("from_trace", new FromTraceBenchmark(workspace).run());
        return out;
    }

    private ObjectNode speed(SimulationSettings settings, Path script, long paths) {
        Explorer.Options options = Explorer.Options.defaults();
        if (script != null) {
            options = options.withScript(script);
        }
        ExploreSettings explore = ExploreSettings.builder().strategy(Strategy.RANDOM).seed(1).maxPaths(paths)
                .faults(new FaultBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, 0)).build();
        Explorer.start(settings, ExploreSettings.builder().strategy(Strategy.RANDOM).seed(99).maxPaths(Math.max(1, paths / 4))
                .faults(explore.faults()).build(), options).run(); // warm-up
        long processCpuStart = processCpuNanos();
        ExploreReport report = Explorer.start(settings, explore, options).run();
        long processCpu = processCpuNanos() - processCpuStart;
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("paths", report.paths());
        node.put("steps", report.steps());
        node.put("seconds", Results.round(report.elapsed().toNanos() / 1e9));
        node.put("steps_per_s", Math.round(report.stepsPerSecond()));
        node.put("steps_per_cpu_s", Math.round(report.stepsPerCpuSecond()));
        // The whole process's CPU (garbage collection, JIT and Python compilation included): steps per core.
        if (processCpu > 0) {
            node.put("process_cpu_s", Results.round(processCpu / 1e9));
            node.put("steps_per_process_cpu_s", Math.round(report.steps() / (processCpu / 1e9)));
        }
        node.put("load_average", Results.round(Machine.loadAverage()));
        node.put("paths_per_s", Results.round(report.pathsPerSecond()));
        workspace.progress().say("explore %s: %d paths, %d steps, %.0f steps/s (%.0f per CPU second of the worker, "
                        + "%.0f per CPU second of the process; load average %.1f)",
                script == null ? "without predicates" : script.getFileName(), report.paths(), report.steps(),
                report.stepsPerSecond(), report.stepsPerCpuSecond(), report.steps() / Math.max(1e-9, processCpu / 1e9),
                Machine.loadAverage());
        return node;
    }

    private ObjectNode firstViolation(SimulationSettings settings, Strategy strategy, Path script) {
        ExploreSettings explore = ExploreSettings.builder().strategy(strategy).seed(1).maxPaths(100_000)
                .budget(Duration.ofMinutes(2)).stopAtFirst(true).maxDepth(strategy == Strategy.DPOR ? 400 : 10_000)
                .faults(new FaultBudget(strategy == Strategy.DPOR ? 1 : Integer.MAX_VALUE, 0, 0, 0))
                .windowMillis(strategy == Strategy.RANDOM ? 0 : 10).build();
        ExploreReport report = Explorer.start(settings, explore, Explorer.Options.defaults().withScript(script)).run();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        boolean found = report.findings().stream().anyMatch(f -> f.kind() == Finding.Kind.SAFETY
                && f.predicate().equals("global_consistency"));
        node.put("found", found);
        node.put("seconds", Results.round(report.elapsed().toNanos() / 1e9));
        node.put("paths", report.paths());
        node.put("steps", report.steps());
        node.put("load_average", Results.round(Machine.loadAverage()));
        workspace.progress().say("explore %s: first latest-response violation %s after %.1f s, %d paths", strategy.cliName(),
                found ? "found" : "NOT found", report.elapsed().toNanos() / 1e9, report.paths());
        return node;
    }

    /** deja simulate with seeds 1, 2, ... and deja check of each trace, until one shows the violation. */
    private ObjectNode seedSweep(SimulationSettings base, Path script) {
        long start = System.nanoTime();
        long deadline = start + Duration.ofMinutes(2).toNanos();
        for (long seed = 1; System.nanoTime() < deadline; seed++) {
            SimulationSettings settings = new SimulationSettings(base.nodes(), base.driver(), seed, base.faults(),
                    base.maxSteps(), base.maxVirtualMillis(), base.stop());
            Path trace = workspace.path("explore/sweep-" + seed);
            Simulator.run(settings, trace, Workspace.options(settings));
            CheckReport report = Checker.check(trace, script, Checker.Options.defaults().withReuseHistory(false),
                    new InMemoryStateHistory());
            Workspace.delete(trace);
            boolean found = report.violations().stream().anyMatch(v -> v.predicate().equals("global_consistency")
                    && v.status() == Violation.Status.VIOLATED);
            if (found) {
                ObjectNode node = JsonNodeFactory.instance.objectNode();
                node.put("found", true);
                node.put("seconds", Results.round((System.nanoTime() - start) / 1e9));
                node.put("seeds", seed);
                workspace.progress().say("simulate seed sweep: first latest-response violation at seed %d after %.1f s",
                        seed, (System.nanoTime() - start) / 1e9);
                return node;
            }
        }
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("found", false);
        node.put("seconds", Results.round((System.nanoTime() - start) / 1e9));
        return node;
    }

    /** CPU time of every thread of this process so far, or 0 where the JVM does not say. */
    private static long processCpuNanos() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return Math.max(0, os.getProcessCpuTime());
        }
        return 0;
    }

    /** The directory holding {@code scripts/}: the working directory or one of its parents. */
    private static Path scriptRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (p.resolve(PAXOS_SCRIPT).toFile().isFile()) {
                return p;
            }
        }
        throw new IllegalStateException("the explore benchmark needs scripts/paxos.py in " + here + " or a parent");
    }
}
