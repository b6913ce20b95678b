package dev.deja.examples.chord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.examples.testing.SimCluster;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Runs the Chord scenario (ten nodes join at once, n9 fails at 3 s, the run ends at 6 s) on the in-memory
 * {@link SimCluster} and checks the ring with {@link ChordRing#problems}: the correct protocol has a stable ring
 * before and after the failure on every seed; each bug breaks what it should. Every failure names the seed.
 */
class ChordNodeTest {
    private static final int NODES = 10;
    private static final SimCluster.Network NETWORK = new SimCluster.Network(0.0, 10, 0.0, 10, 0.0);
    private static final long BEFORE_FAILURE_MILLIS = ChordDriver.FAIL_AT.toMillis() - 100;
    private static final long END_MILLIS = ChordDriver.END_AT.toMillis();
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N4 = new NodeId("n4");
    private static final NodeId N9 = new NodeId("n9");

    /** A cluster of n1..n10 and the driver, started; the caller runs it. */
    private static SimCluster cluster(long seed, Optional<String> bug) {
        SimCluster cluster = new SimCluster(seed, NETWORK);
        for (int i = 1; i <= NODES; i++) {
            cluster.server("n" + i, ChordNode::new);
        }
        cluster.client("client", ChordDriver::new);
        cluster.start(bug.map(name -> Map.of("bug", name)).orElse(Map.of()));
        return cluster;
    }

    private static Map<ChordRing.Property, List<String>> problems(SimCluster cluster) {
        return ChordRing.problems(cluster.nodes().values().stream()
                .filter(ChordNode.class::isInstance).map(node -> ((ChordNode) node).view()).toList());
    }

    private static ChordRing.View view(SimCluster cluster, NodeId id) {
        return ((ChordNode) cluster.nodes().get(id)).view();
    }

    @Test
    void keys_ofTheScenario_areDistinct_andN4sSixthFingerStartsExactlyAtN1() {
        Set<Integer> keys = new HashSet<>();
        IntStream.rangeClosed(1, 57).forEach(i -> assertThat(keys.add(ChordRing.key(new NodeId("n" + i))))
                .as("key of n%d is new", i).isTrue());
        assertThat(ChordRing.fingerStart(ChordRing.key(N4), 6)).isEqualTo(ChordRing.key(N1));
        assertThat(ChordDriver.failingNode(IntStream.rangeClosed(1, NODES).mapToObj(i -> new NodeId("n" + i)).toList()))
                .contains(N9);
    }

    @Test
    void arcs_wrapAroundTheRing_andTheArcFromAKeyToItselfIsTheRestOfTheRing() {
        assertThat(ChordRing.openArc(5, 1, 10)).isTrue();
        assertThat(ChordRing.openArc(10, 1, 10)).isFalse();
        assertThat(ChordRing.openArc(4000, 4090, 10)).isFalse();
        assertThat(ChordRing.openArc(4095, 4090, 10)).isTrue();
        assertThat(ChordRing.openArc(3, 4090, 10)).isTrue();
        assertThat(ChordRing.openArc(7, 7, 7)).isFalse();
        assertThat(ChordRing.openArc(8, 7, 7)).isTrue();
        assertThat(ChordRing.arcClosedRight(10, 1, 10)).isTrue();
        assertThat(ChordRing.arcClosedRight(7, 7, 7)).isTrue();
        assertThat(ChordRing.fingerStart(4095, 0)).isZero();
    }

    @Test
    void ring_withoutBug_isStableBeforeAndAfterTheFailure() {
        for (long seed = 0; seed < 20; seed++) {
            SimCluster cluster = cluster(seed, Optional.empty());
            cluster.run(BEFORE_FAILURE_MILLIS, Integer.MAX_VALUE);
            assertThat(problems(cluster)).as("seed %d before the failure", seed)
                    .allSatisfy((property, found) -> assertThat(found).as(property.predicate()).isEmpty());
            assertThat(view(cluster, N9).live()).isTrue();

            cluster.run(END_MILLIS, Integer.MAX_VALUE);
            assertThat(view(cluster, N9).live()).as("seed %d: n9 failed", seed).isFalse();
            assertThat(problems(cluster)).as("seed %d at the end", seed)
                    .allSatisfy((property, found) -> assertThat(found).as(property.predicate()).isEmpty());
        }
    }

    @Test
    void succSuccHash_leavesTheRingBrokenAfterTheFailure() {
        for (long seed = 0; seed < 5; seed++) {
            SimCluster cluster = cluster(seed, Optional.of("succ-succ-hash"));
            cluster.run(BEFORE_FAILURE_MILLIS, Integer.MAX_VALUE);
            assertThat(problems(cluster).get(ChordRing.Property.RING_CONSISTENCY)).as("seed %d", seed).isEmpty();
            cluster.run(END_MILLIS, Integer.MAX_VALUE);
            Map<ChordRing.Property, List<String>> problems = problems(cluster);
            assertThat(problems.get(ChordRing.Property.RING_CONSISTENCY)).as("seed %d", seed)
                    .singleElement().asString().endsWith("predecessor null is not a live node");
            assertThat(problems.get(ChordRing.Property.PRED_SELF_IFF_SUCC_SELF)).as("seed %d", seed).hasSize(1);
            assertThat(cluster.logLines()).as("seed %d", seed).anyMatch(line -> line.matches(".*no node at address \\d+.*"));
        }
    }

    @Test
    void fingerBoundary_makesN4sPerfectFingerOscillate() {
        SimCluster cluster = cluster(1, Optional.of("finger-boundary"));
        cluster.run(BEFORE_FAILURE_MILLIS - 1000, Integer.MAX_VALUE);
        List<NodeId> seen = new ArrayList<>();
        cluster.observe((id, node) -> {
            if (id.equals(N4)) {
                NodeId finger = ((ChordNode) node).view().fingers().get(6);
                if (seen.isEmpty() || !seen.getLast().equals(finger)) {
                    seen.add(finger);
                }
            }
        });
        cluster.run(BEFORE_FAILURE_MILLIS, Integer.MAX_VALUE);
        assertThat(seen).as("n4's finger 6 over a second of a stable ring").contains(N1).hasSizeGreaterThan(4);
        assertThat(seen.stream().filter(N1::equals).count()).isGreaterThan(1);
        assertThat(problems(cluster).get(ChordRing.Property.RING_CONSISTENCY)).isEmpty();
    }

    @Test
    void fingerLazy_leavesFingersWrongLongAfterTheRingIsStable() {
        int wrong = 0;
        for (long seed = 0; seed < 10; seed++) {
            SimCluster cluster = cluster(seed, Optional.of("finger-lazy"));
            cluster.run(END_MILLIS, Integer.MAX_VALUE);
            assertThat(problems(cluster).get(ChordRing.Property.RING_CONSISTENCY)).as("seed %d", seed).isEmpty();
            if (!problems(cluster).get(ChordRing.Property.FINGERS_CORRECT).isEmpty()) {
                wrong++;
            }
            cluster = cluster(seed, Optional.of("finger-lazy"));
            cluster.run(BEFORE_FAILURE_MILLIS, Integer.MAX_VALUE);
            if (!problems(cluster).get(ChordRing.Property.FINGERS_CORRECT).isEmpty()) {
                wrong++;
            }
        }
        // The correct protocol has every finger right at both points on every seed (ring_withoutBug_...).
        assertThat(wrong).as("runs of ten seeds x two points with fingers still wrong 3 s after a change").isGreaterThan(3);
    }

    @Test
    void onStart_refusesAnUnknownBug_andKeysThatCollide() {
        assertThatThrownBy(() -> cluster(1, Optional.of("nope")))
                .hasMessageContaining("unknown Chord bug 'nope'").hasMessageContaining("finger-boundary");
        NodeId twin = IntStream.range(0, 100_000).mapToObj(i -> new NodeId("x" + i))
                .filter(id -> ChordRing.key(id) == ChordRing.key(N1)).findFirst().orElseThrow();
        SimCluster cluster = new SimCluster(1, NETWORK).server("n1", ChordNode::new).server(twin.value(), ChordNode::new);
        assertThatThrownBy(() -> cluster.start(Map.of()))
                .hasMessageContaining("both hash to key " + ChordRing.key(N1)).hasMessageContaining("distinct keys");
    }
}
