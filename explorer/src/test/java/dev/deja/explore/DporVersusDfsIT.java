package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Partial-order reduction against plain depth-first search on a small Paxos (three nodes, the latest-response bug,
 * 1 ms delays with a 10 ms window, at most one lost message), both explored to exhaustion up to the same depth:
 * the same predicates are violated, with fewer paths for dpor. The figures are printed for the documentation.
 * {@code -Ddeja.dporDepth=K} explores deeper (the build passes 10, and 14 with {@code -Psoak}).
 */
class DporVersusDfsIT {
    private static final int DEPTH = Integer.getInteger("deja.dporDepth", 10);
    private static final int DROPS = Integer.getInteger("deja.dporDrops", 1);

    private static ExploreReport explore(Strategy strategy) {
        SimulationSettings settings = ExampleSimulation.settings(new PaxosExample(), 3, Optional.of("latest-response"))
                .seed(1).delayMillis(1, 10).build();
        ExploreSettings explore = ExploreSettings.builder().strategy(strategy).seed(1).maxPaths(2_000_000)
                .maxDepth(DEPTH).searchDepth(1_000_000).faults(new FaultBudget(DROPS, 0, 0, 0)).windowMillis(10).build();
        ExploreReport report = Explorer.start(settings, explore,
                Explorer.Options.defaults().withScript(Path.of("../scripts/paxos.py"))).run();
        System.out.printf("DporVersusDfsIT: %s, depth %d, drops <= %d: %s, %d paths, %d steps, %d states visited, "
                        + "%d distinct, %.1f s; %s; violated %s%n", strategy.cliName(), DEPTH, DROPS, report.ending(),
                report.paths(), report.steps(), report.statesVisited(), report.distinctStates(),
                report.elapsed().toNanos() / 1e9, report.search(), violated(report));
        return report;
    }

    private static Set<String> violated(ExploreReport report) {
        return report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).map(Finding::predicate)
                .collect(Collectors.toSet());
    }

    @Test
    void dpor_exploresToExhaustion_findsWhatDfsFinds_withFewerPaths() {
        ExploreReport dfs = explore(Strategy.DFS);
        ExploreReport dpor = explore(Strategy.DPOR);
        assertThat(dfs.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(dpor.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(violated(dpor)).isEqualTo(violated(dfs));
        assertThat(dpor.paths()).isLessThan(dfs.paths());
    }
}
