package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.explore.failover.BackupNode;
import dev.deja.explore.failover.PrimaryNode;
import dev.deja.node.NodeId;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A bug only a partition reaches: the failover pair's backup takes over after 150 ms without heartbeats, so cutting
 * either node off makes two primaries. Random walks take a partition point (after each step, the node that just ran
 * cut off for a virtual second) with a 5% chance within {@code --max-partitions}: none allowed, 30 paths are clean;
 * one allowed, the split brain is found within the same 30 and its shortest path takes the one partition.
 *
 * <p>Not dfs: its state hash leaves out the virtual clock and when pending timers are due, so in this timer-driven
 * pair a step that only re-arms a timer looks like a state already searched and the search ends after a few steps.
 */
class PartitionIT {
    private static final Path SCRIPT = Path.of("src/test/resources/failover.py");

    private static ExploreReport explore(int partitions) {
        SimulationSettings settings = SimulationSettings.builder()
                .node(new NodeId("n1"), PrimaryNode.class.getName(), Map.of("backup", "n2"))
                .node(new NodeId("n2"), BackupNode.class.getName(), Map.of())
                .seed(1).delayMillis(1, 1).maxVirtualMillis(600).stop(SimulationSettings.Stop.AT_LIMIT).build();
        ExploreSettings explore = ExploreSettings.builder().strategy(Strategy.RANDOM).seed(1).maxPaths(30).maxDepth(200)
                .workers(1).faults(new FaultBudget(0, 0, 0, partitions)).faultRate(0.05).hashStates(true).build();
        ExploreReport report = Explorer.start(settings, explore, Explorer.Options.defaults().withScript(SCRIPT)).run();
        System.out.printf("PartitionIT: partitions <= %d: %s, %d paths, %d steps, %d distinct, %.1f s; findings %s%n",
                partitions, report.ending(), report.paths(), report.steps(), report.distinctStates(),
                report.elapsed().toNanos() / 1e9, report.findings().stream()
                        .map(f -> f.predicate() + "/" + f.kind() + " " + f.steps() + " steps").toList());
        return report;
    }

    @Test
    void splitBrain_isReachedOnlyWithAPartition() {
        ExploreReport none = explore(0);
        assertThat(none.ending()).isEqualTo(ExploreReport.Ending.PATH_LIMIT);
        assertThat(none.findings()).noneMatch(f -> f.kind() == Finding.Kind.SAFETY);

        ExploreReport one = explore(1);
        assertThat(one.ending()).isEqualTo(ExploreReport.Ending.PATH_LIMIT);
        Finding found = one.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).findFirst().orElseThrow();
        assertThat(found.predicate()).isEqualTo("one_primary");
        Schedule schedule = found.schedule();
        assertThat(schedule.exploration().isolationPoints()).isTrue();
        // No drop, duplicate or crash is allowed, so the one 'yes' to a chance is the partition.
        assertThat(schedule.answers().stream().filter(a -> a.kind() == Schedule.Kind.CHANCE && a.value() == 1).count())
                .as("partitions on the shortest violating path").isEqualTo(1);
    }
}
