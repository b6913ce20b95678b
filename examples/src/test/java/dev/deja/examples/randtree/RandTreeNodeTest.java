package dev.deja.examples.randtree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.testing.InMemoryRuns;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * RandTree on the simulator (in memory) over many seeds: without faults the nodes build one tree rooted at the
 * smallest node with the fan-out bound kept and the workload client sees it; with message loss, slow messages and
 * crash-restarts the correct protocol never breaks a safety property after any step. Failures name the
 * {@code deja simulate} command of their run; {@code -Ddeja.test.seed=N} runs one seed.
 */
class RandTreeNodeTest {
    private static final String SEED_PROPERTY = "deja.test.seed";
    private static final RandTreeExample RANDTREE = new RandTreeExample();
    private static final int NODES = 7;
    /** Six seconds of virtual time, long enough for the fixed protocol's trees to merge many times over. */
    private static final UnaryOperator<SimulationSettings.Builder> TWO_TREES_RUN = settings -> settings
            .delayMillis(1, 10).maxVirtualMillis(6_000).stop(SimulationSettings.Stop.AT_LIMIT);

    private static Map<NodeId, TreeViews.View> views(Map<NodeId, Object> live) {
        Map<NodeId, TreeViews.View> views = new TreeMap<>();
        live.forEach((id, node) -> {
            if (node instanceof RandTreeNode tree) {
                views.put(id, TreeViews.View.of(tree));
            }
        });
        return views;
    }

    @Test
    void tree_withoutFaults_isOneConsistentTreeUnderTheSmallestNode() {
        for (int maxChildren = 2; maxChildren <= 3; maxChildren++) {
            for (long seed : seeds(20)) {
                UnaryOperator<SimulationSettings.Builder> sixSeconds = settings -> settings.delayMillis(1, 10)
                        .maxVirtualMillis(6_000).stop(SimulationSettings.Stop.AT_LIMIT);
                InMemoryRuns.Run run = InMemoryRuns.run(RANDTREE, NODES, Optional.empty(),
                        Map.of("maxChildren", Integer.toString(maxChildren)), seed, sixSeconds, Optional.empty(),
                        (step, view) -> true);
                Map<NodeId, TreeViews.View> views = views(run.nodes());
                String context = "reproduce: " + run.command() + ": " + TreeViews.describe(views);
                assertThat(TreeViews.consistent(views)).as(context).isTrue();
                assertThat(TreeViews.roots(views)).as(context).containsExactly(new NodeId("n1"));
                int bound = maxChildren;
                assertThat(views.values()).as(context).allSatisfy(view -> {
                    assertThat(view.children()).hasSizeLessThanOrEqualTo(bound);
                    assertThat(view.recoveryTimerScheduled()).isTrue();
                });
                RandTreeClient client = (RandTreeClient) run.nodes().get(ExampleSimulation.DRIVER_ID);
                assertThat(client.finished()).as("the client saw the tree stand; %s", context).isTrue();
            }
        }
    }

    @Test
    void correctProtocol_withLossAndRestarts_neverBreaksASafetyProperty() {
        List<String> failures = new ArrayList<>();
        UnaryOperator<SimulationSettings.Builder> hostile = settings -> settings.dropProbability(0.1).delayMillis(1, 100)
                .crashRate(0.002).restartDelayMillis(1).maxVirtualMillis(3_000).stop(SimulationSettings.Stop.AT_LIMIT);
        for (long seed : seeds(100)) {
            InMemoryRuns.Run run = InMemoryRuns.run(RANDTREE, NODES, Optional.empty(), seed, hostile, Optional.empty(),
                    (step, view) -> {
                        Map<NodeId, TreeViews.View> views = views(view.liveNodes());
                        Set<TreeViews.Property> broken = TreeViews.violated(views);
                        if (!broken.isEmpty() && failures.isEmpty()) {
                            failures.add("at " + view.virtualMillis() + " ms after a step of " + step.node() + ": "
                                    + broken + " in " + TreeViews.describe(views));
                        }
                        return failures.isEmpty();
                    });
            if (!failures.isEmpty()) {
                failures.add("reproduce: " + run.command());
                break;
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void twoTrees_withTheRecoveryTimer_mergeUnderTheBootstrap() {
        for (long seed : seeds(10)) {
            InMemoryRuns.Run run = InMemoryRuns.run(RANDTREE, 5, Optional.empty(), Map.of("topology", "two-trees"),
                    seed, TWO_TREES_RUN, Optional.empty(), (step, view) -> true);
            Map<NodeId, TreeViews.View> views = views(run.nodes());
            String context = "reproduce: " + run.command() + ": " + TreeViews.describe(views);
            assertThat(TreeViews.consistent(views)).as(context).isTrue();
            assertThat(TreeViews.roots(views)).as(context).containsExactly(new NodeId("n1"));
            assertThat(views).as(context).hasSize(5);
        }
    }

    @Test
    void twoTrees_withoutTheRecoveryTimer_neverMerge() {
        NodeId n1 = new NodeId("n1");
        NodeId n4 = new NodeId("n4");
        for (long seed : seeds(10)) {
            List<String> failures = new ArrayList<>();
            InMemoryRuns.Run run = InMemoryRuns.run(RANDTREE, 5, Optional.of("no-recovery-timer"),
                    Map.of("topology", "two-trees"), seed, TWO_TREES_RUN, Optional.empty(), (step, view) -> {
                        Map<NodeId, TreeViews.View> views = views(view.liveNodes());
                        // n4, the second tree's bootstrap, is a root from its start; n1 never learns of it.
                        if (!TreeViews.roots(views).contains(n4) && failures.isEmpty()) {
                            failures.add("n4 is no root after step " + step.step() + ": "
                                    + TreeViews.describe(views));
                        }
                        return failures.isEmpty();
                    });
            Map<NodeId, TreeViews.View> views = views(run.nodes());
            String context = "reproduce: " + run.command() + ": " + TreeViews.describe(views);
            assertThat(failures).as(context).isEmpty();
            assertThat(TreeViews.roots(views)).as(context).contains(n1, n4);
            assertThat(views.get(n1).recoveryTimerScheduled()).as(context).isFalse();
        }
    }

    /** Seeds 1..count, or only the one {@code -Ddeja.test.seed} names. */
    private static long[] seeds(int count) {
        Long only = Long.getLong(SEED_PROPERTY);
        return only != null ? new long[] {only} : java.util.stream.LongStream.rangeClosed(1, count).toArray();
    }
}
