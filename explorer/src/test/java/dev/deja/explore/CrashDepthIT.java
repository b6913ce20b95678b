package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.explore.epoch.EpochNode;
import dev.deja.explore.epoch.EpochWitness;
import dev.deja.node.NodeId;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A deep bug (SAMC's term): {@link EpochNode} reuses an epoch only after two crashes, the second right after a
 * restart's unsynced write. dfs explores crash points exhaustively within the crash budget: with one crash the
 * system is clean, with two the bug is found and its shortest path crashes twice; syncing on restart fixes it.
 */
class CrashDepthIT {
    private static final Path SCRIPT = Path.of("src/test/resources/epoch.py");

    private static SimulationSettings settings(boolean fixed) {
        return SimulationSettings.builder()
                .node(new NodeId("n1"), EpochNode.class.getName(), fixed
                        ? Map.of("witness", "n2", "sync-on-restart", "yes") : Map.of("witness", "n2"))
                .node(new NodeId("n2"), EpochWitness.class.getName(), Map.of())
                .seed(1).delayMillis(1, 1).restartDelayMillis(5).maxVirtualMillis(1_000)
                .stop(SimulationSettings.Stop.AT_LIMIT).build();
    }

    private static ExploreReport explore(boolean fixed, int crashes) {
        ExploreSettings explore = ExploreSettings.builder().strategy(Strategy.DFS).seed(1).maxPaths(100_000).maxDepth(40)
                .searchDepth(1_000_000).workers(1).faults(new FaultBudget(0, 0, crashes, 0)).windowMillis(1).build();
        ExploreReport report = Explorer.start(settings(fixed), explore, Explorer.Options.defaults().withScript(SCRIPT)).run();
        System.out.printf("CrashDepthIT: %s, crashes <= %d: %s, %d paths, %d steps, %d distinct, %.1f s; findings %s%n",
                fixed ? "fixed" : "bug", crashes, report.ending(), report.paths(), report.steps(), report.distinctStates(),
                report.elapsed().toNanos() / 1e9, report.findings().stream()
                        .map(f -> f.predicate() + "/" + f.kind() + " " + f.steps() + " steps").toList());
        return report;
    }

    private static boolean safety(ExploreReport report) {
        return report.findings().stream().anyMatch(f -> f.kind() == Finding.Kind.SAFETY);
    }

    @Test
    void deepBug_needsTwoCrashes_isFoundWithTwo_andTheFixIsClean() {
        ExploreReport one = explore(false, 1);
        assertThat(one.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(safety(one)).as("one crash cannot reuse an epoch").isFalse();

        ExploreReport two = explore(false, 2);
        assertThat(two.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        Finding found = two.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).findFirst().orElseThrow();
        assertThat(found.predicate()).isEqualTo("epochs_unique");
        Schedule schedule = found.schedule();
        // No drop, duplicate or partition is allowed, so every 'yes' to a chance is a crash.
        long crashes = schedule.answers().stream().filter(a -> a.kind() == Schedule.Kind.CHANCE && a.value() == 1).count();
        System.out.println("CrashDepthIT: the shortest violating path:\n" + schedule.text());
        assertThat(crashes).as("crashes on the shortest violating path").isEqualTo(2);

        ExploreReport fixed = explore(true, 2);
        assertThat(fixed.ending()).isEqualTo(ExploreReport.Ending.EXHAUSTED);
        assertThat(safety(fixed)).as("syncing on restart keeps epochs unique").isFalse();
    }
}
