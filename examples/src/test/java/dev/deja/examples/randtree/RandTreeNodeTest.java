package dev.deja.examples.randtree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.testing.SimCluster;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * RandTree on the in-memory {@link SimCluster} over many seeds: without faults the nodes build one tree rooted at
 * the smallest node with the fan-out bound kept and the workload client sees it; with message loss, slow messages
 * and crash-restarts the correct protocol never breaks a safety property after any handler. Failures name the
 * seed and the command that runs just that seed ({@code -Ddeja.test.seed=N}).
 */
class RandTreeNodeTest {
    private static final String SEED_PROPERTY = "deja.test.seed";
    private static final int NODES = 7;
    private static final SimCluster.Network CALM = new SimCluster.Network(0, 10, 0, 10, 0);
    private static final SimCluster.Network HOSTILE = new SimCluster.Network(0.1, 10, 0.05, 300, 0.002);

    private static SimCluster cluster(long seed, SimCluster.Network network) {
        SimCluster cluster = new SimCluster(seed, network);
        for (int i = 1; i <= NODES; i++) {
            cluster.server("n" + i, RandTreeNode::new);
        }
        return cluster;
    }

    private static Map<NodeId, TreeViews.View> views(SimCluster cluster) {
        Map<NodeId, TreeViews.View> views = new TreeMap<>();
        cluster.nodes().forEach((id, node) -> {
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
                RandTreeClient client = new RandTreeClient();
                SimCluster cluster = cluster(seed, CALM).client("client", () -> client);
                cluster.start(Map.of("maxChildren", Integer.toString(maxChildren)));
                cluster.run(6_000, 1_000_000);
                Map<NodeId, TreeViews.View> views = views(cluster);
                String context = reproduce("tree_withoutFaults_isOneConsistentTreeUnderTheSmallestNode", seed)
                        + ", maxChildren " + maxChildren + ": " + TreeViews.describe(views);
                assertThat(TreeViews.consistent(views)).as(context).isTrue();
                assertThat(TreeViews.roots(views)).as(context).containsExactly(new NodeId("n1"));
                int bound = maxChildren;
                assertThat(views.values()).as(context).allSatisfy(view -> {
                    assertThat(view.children()).hasSizeLessThanOrEqualTo(bound);
                    assertThat(view.recoveryTimerScheduled()).isTrue();
                });
                assertThat(client.finished()).as("the client saw the tree stand; %s", context).isTrue();
            }
        }
    }

    @Test
    void correctProtocol_withLossAndRestarts_neverBreaksASafetyProperty() {
        List<String> failures = new ArrayList<>();
        for (long seed : seeds(100)) {
            SimCluster cluster = cluster(seed, HOSTILE);
            long runSeed = seed;
            cluster.observe((id, node) -> {
                Set<TreeViews.Property> broken = TreeViews.violated(views(cluster));
                if (!broken.isEmpty() && failures.isEmpty()) {
                    failures.add(reproduce("correctProtocol_withLossAndRestarts_neverBreaksASafetyProperty", runSeed)
                            + ": at " + cluster.nowMillis() + " ms after a handler of " + id
                            + ": " + broken + " in " + TreeViews.describe(views(cluster)));
                }
            });
            cluster.start(Map.of());
            cluster.run(3_000, 1_000_000);
            if (!failures.isEmpty()) {
                break;
            }
        }
        assertThat(failures).isEmpty();
    }

    /** Seeds 1..count, or only the one {@code -Ddeja.test.seed} names. */
    private static long[] seeds(int count) {
        Long only = Long.getLong(SEED_PROPERTY);
        return only != null ? new long[] {only} : java.util.stream.LongStream.rangeClosed(1, count).toArray();
    }

    private static String reproduce(String test, long seed) {
        return "seed " + seed + "; run it alone: mvn -pl examples -am test -Dtest='RandTreeNodeTest#" + test + "' -D"
                + SEED_PROPERTY + "=" + seed + " -Dsurefire.failIfNoSpecifiedTests=false";
    }
}
