package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.explore.counter.Counter;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * dfs and dpor split among workers: the lost-update counter (a server, three writers, at most one lost message)
 * explored to exhaustion with one worker and with two reports the same, non-empty, set of violated predicates, and
 * the two-worker run says how it split the tree.
 */
class ExploreWorkersIT {
    private static ExploreReport explore(Strategy strategy, int workers) {
        SimulationSettings settings = Counter.settings(3);
        ExploreSettings explore = ExploreSettings.builder().strategy(strategy).seed(1).maxPaths(1_000_000)
                .maxDepth(200).searchDepth(1_000_000).workers(workers).faults(new FaultBudget(1, 0, 0, 0))
                .windowMillis(1).build();
        ExploreReport report = Explorer.start(settings, explore, Explorer.Options.defaults()
                .withScript(Path.of(Counter.SCRIPT))).run();
        System.out.printf("ExploreWorkersIT: %s, %d worker(s): %s, %d paths, %d steps, %d states visited, %d distinct, "
                        + "%.1f s, CPU %.1f s; %s; violated %s%n", strategy.cliName(), workers, report.ending(),
                report.paths(), report.steps(), report.statesVisited(), report.distinctStates(),
                report.elapsed().toNanos() / 1e9, report.cpu().toNanos() / 1e9, report.search(), violated(report));
        return report;
    }

    static Set<String> violated(ExploreReport report) {
        return report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).map(Finding::predicate)
                .collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = {"DFS", "DPOR"})
    void treeSearch_oneAndTwoWorkers_exhaustTheTree_withTheSameViolations(Strategy strategy) {
        ExploreReport one = explore(strategy, 1);
        ExploreReport two = explore(strategy, 2);
        assertThat(one.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(two.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(violated(one)).containsExactly("no_lost_update");
        assertThat(violated(two)).isEqualTo(violated(one));
        assertThat(two.workers()).isEqualTo(2);
        assertThat(two.search()).contains("split among 2 workers into");
        // The shortest violating path is as short whoever found it: both searches cover every path.
        assertThat(shortest(two)).isEqualTo(shortest(one));
    }

    private static long shortest(ExploreReport report) {
        return report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).mapToLong(Finding::steps).min()
                .orElseThrow();
    }
}
