package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.explore.counter.Counter;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Partial-order reduction against plain depth-first search, and both split among workers, explored to exhaustion.
 *
 * <p>The default build uses the lost-update counter ({@link Counter}: two servers, three writers, at most one lost
 * message), small enough to exhaust and with a violation inside: dfs and dpor report the same, non-empty, set of
 * violated predicates, dpor with far fewer paths; with two workers each reports what it reported with one.
 * {@code -Psoak} adds a small Paxos (three nodes, the latest-response bug, 1 ms delays with a 10 ms window, at most
 * one lost message) to depth {@code deja.dporDepth} (14): there dfs and dpor agree, and dpor runs fewer paths.
 * The figures are printed for the documentation.
 */
class DporVersusDfsIT {
    private static final int PAXOS_DEPTH = Integer.getInteger("deja.dporDepth", 10);
    private static final int DROPS = Integer.getInteger("deja.dporDrops", 1);
    private static final Map<String, ExploreReport> COUNTER = new ConcurrentHashMap<>();

    /** The counter explored by {@code strategy} on {@code workers} workers, once per class. */
    private static ExploreReport counter(Strategy strategy, int workers) {
        return COUNTER.computeIfAbsent(strategy + "/" + workers, key -> explore("counter", Counter.settings(2, 3),
                ExploreSettings.builder().strategy(strategy).seed(1).maxPaths(1_000_000).maxDepth(200)
                        .searchDepth(1_000_000).workers(workers).faults(new FaultBudget(DROPS, 0, 0, 0)).windowMillis(1)
                        .build(), Path.of(Counter.SCRIPT)));
    }

    private static ExploreReport explore(String what, SimulationSettings settings, ExploreSettings explore, Path script) {
        ExploreReport report = Explorer.start(settings, explore, Explorer.Options.defaults().withScript(script)).run();
        System.out.printf("DporVersusDfsIT: %s, %s, %d worker(s), depth %d, drops <= %d: %s, %d paths, %d steps, "
                        + "%d states visited, %d distinct, %.1f s, CPU %.1f s; %s; violated %s%n", what,
                explore.strategy().cliName(), explore.workers(), explore.maxDepth(), explore.faults().maxDrops(),
                report.ending(), report.paths(), report.steps(), report.statesVisited(), report.distinctStates(),
                report.elapsed().toNanos() / 1e9, report.cpu().toNanos() / 1e9, report.search(), violated(report));
        return report;
    }

    private static Set<String> violated(ExploreReport report) {
        return report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).map(Finding::predicate)
                .collect(Collectors.toSet());
    }

    private static long shortest(ExploreReport report) {
        return report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).mapToLong(Finding::steps).min()
                .orElseThrow();
    }

    @Test
    void dpor_exploresToExhaustion_findsWhatDfsFinds_withFarFewerPaths() {
        ExploreReport dfs = counter(Strategy.DFS, 1);
        ExploreReport dpor = counter(Strategy.DPOR, 1);
        assertThat(dfs.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(dpor.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(violated(dfs)).containsExactly("no_lost_update");
        assertThat(violated(dpor)).isEqualTo(violated(dfs));
        // Not the same shortest path: dpor runs one interleaving per class of equivalent ones, in which steps of
        // other nodes may come before the violating one (when written: 6 steps by dfs, 7 by dpor).
        // One worker: both searches are deterministic, so the counts are too (885 against 48 when written).
        assertThat(dpor.paths() * 4).as("dpor's paths, four times over, against dfs's").isLessThan(dfs.paths());
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"DFS", "DPOR"})
    void treeSearch_twoWorkers_exhaustTheTree_withTheViolationsOfOne(Strategy strategy) {
        ExploreReport one = counter(strategy, 1);
        ExploreReport two = counter(strategy, 2);
        assertThat(two.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(two.workers()).isEqualTo(2);
        assertThat(two.search()).contains("split among 2 workers into");
        assertThat(violated(two)).isNotEmpty().isEqualTo(violated(one));
        if (strategy == Strategy.DFS) {
            // dfs searches again from a state reached at an earlier step than before, so with any number of workers
            // it meets every violating state at its earliest step. (dpor's representative interleavings differ with
            // the split, and so may the length of the first violating one.)
            assertThat(shortest(two)).isEqualTo(shortest(one));
        }
    }

    @Test
    void dpor_onPaxos_exploresToExhaustion_findsWhatDfsFinds_withFewerPaths() {
        assumeTrue(Boolean.getBoolean("deja.soak"), "the Paxos comparison runs under -Psoak");
        SimulationSettings settings = ExampleSimulation.settings(new PaxosExample(), 3, Optional.of("latest-response"))
                .seed(1).delayMillis(1, 10).build();
        Map<Strategy, ExploreReport> reports = new ConcurrentHashMap<>();
        for (Strategy strategy : new Strategy[] {Strategy.DFS, Strategy.DPOR}) {
            reports.put(strategy, explore("paxos latest-response", settings, ExploreSettings.builder().strategy(strategy)
                    .seed(1).maxPaths(2_000_000).maxDepth(PAXOS_DEPTH).searchDepth(1_000_000)
                    .faults(new FaultBudget(DROPS, 0, 0, 0)).windowMillis(10).build(), Path.of("../scripts/paxos.py")));
        }
        ExploreReport dfs = reports.get(Strategy.DFS);
        ExploreReport dpor = reports.get(Strategy.DPOR);
        assertThat(dfs.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(dpor.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(violated(dpor)).isEqualTo(violated(dfs));
        assertThat(dpor.paths()).isLessThan(dfs.paths());
    }
}
