package dev.deja.examples.chord;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.testing.SimulatedRuns;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Chord scenario (ten nodes join at once, n9 fails at 3 s, the run ends at 6 s) on the simulator, the ring
 * checked with {@link ChordRing#problems} on the replayed nodes: the correct protocol has a stable ring before
 * and after the failure on every seed; each bug breaks what it should. Every failure names the {@code deja
 * simulate} command of its run.
 */
class ChordNodeIT {
    private static final ChordExample CHORD = new ChordExample();
    private static final int NODES = 10;
    private static final long BEFORE_FAILURE_MILLIS = ChordDriver.FAIL_AT.toMillis() - 100;
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N4 = new NodeId("n4");
    private static final NodeId N9 = new NodeId("n9");

    @TempDir
    Path temporary;

    /** Each node's view after its last handler before a point in virtual time, and after its last one of all. */
    private static final class Views implements SimulatedRuns.Observer {
        private final long pointMillis;
        private final Map<NodeId, ChordRing.View> beforePoint = new TreeMap<>();
        private final Map<NodeId, ChordRing.View> atEnd = new TreeMap<>();
        private long startMillis = -1;

        Views(long pointMillis) {
            this.pointMillis = pointMillis;
        }

        @Override
        public void afterHandler(NodeId node, Node instance, long atMillis) {
            if (startMillis < 0) {
                startMillis = atMillis; // virtual time's origin: the first start
            }
            if (!(instance instanceof ChordNode chord)) {
                return;
            }
            ChordRing.View view = chord.view();
            atEnd.put(node, view);
            if (atMillis - startMillis < pointMillis) {
                beforePoint.put(node, view);
            }
        }

        Map<ChordRing.Property, List<String>> problemsBeforePoint() {
            return ChordRing.problems(List.copyOf(beforePoint.values()));
        }

        Map<ChordRing.Property, List<String>> problemsAtEnd() {
            return ChordRing.problems(List.copyOf(atEnd.values()));
        }
    }

    private SimulatedRuns.Run run(long seed, Optional<String> bug, SimulatedRuns.Observer observer) {
        return SimulatedRuns.run(temporary, CHORD, NODES, bug, seed, UnaryOperator.identity(), observer);
    }

    @Test
    void ring_withoutBug_isStableBeforeAndAfterTheFailure() {
        for (long seed = 1; seed <= 10; seed++) {
            Views views = new Views(BEFORE_FAILURE_MILLIS);
            SimulatedRuns.Run run = run(seed, Optional.empty(), views);
            String reproduce = "reproduce: " + run.command();
            assertThat(views.problemsBeforePoint()).as("before the failure; %s", reproduce)
                    .allSatisfy((property, found) -> assertThat(found).as(property.predicate()).isEmpty());
            assertThat(views.beforePoint.get(N9).live()).as(reproduce).isTrue();
            assertThat(views.atEnd.get(N9).live()).as("n9 failed; %s", reproduce).isFalse();
            assertThat(views.problemsAtEnd()).as("at the end; %s", reproduce)
                    .allSatisfy((property, found) -> assertThat(found).as(property.predicate()).isEmpty());
        }
    }

    @Test
    void succSuccHash_leavesTheRingBrokenAfterTheFailure() {
        for (long seed = 1; seed <= 3; seed++) {
            Views views = new Views(BEFORE_FAILURE_MILLIS);
            SimulatedRuns.Run run = run(seed, Optional.of("succ-succ-hash"), views);
            String reproduce = "reproduce: " + run.command();
            assertThat(views.problemsBeforePoint().get(ChordRing.Property.RING_CONSISTENCY)).as(reproduce).isEmpty();
            Map<ChordRing.Property, List<String>> problems = views.problemsAtEnd();
            assertThat(problems.get(ChordRing.Property.RING_CONSISTENCY)).as(reproduce)
                    .singleElement().asString().endsWith("predecessor null is not a live node");
            assertThat(problems.get(ChordRing.Property.PRED_SELF_IFF_SUCC_SELF)).as(reproduce).hasSize(1);
            assertThat(run.output()).as(reproduce).anyMatch(line -> line.matches(".*no node at address \\d+.*"));
        }
    }

    @Test
    void fingerBoundary_makesN4sPerfectFingerOscillate() {
        List<NodeId> seen = new ArrayList<>();
        long[] startMillis = {-1};
        SimulatedRuns.Run run = run(1, Optional.of("finger-boundary"), (node, instance, atMillis) -> {
            if (startMillis[0] < 0) {
                startMillis[0] = atMillis;
            }
            long at = atMillis - startMillis[0];
            if (node.equals(N4) && at >= BEFORE_FAILURE_MILLIS - 1000 && at < BEFORE_FAILURE_MILLIS) {
                NodeId finger = ((ChordNode) instance).view().fingers().get(6);
                if (seen.isEmpty() || !seen.getLast().equals(finger)) {
                    seen.add(finger);
                }
            }
        });
        assertThat(seen).as("n4's finger 6 over a second of a stable ring; reproduce: %s", run.command()).contains(N1)
                .hasSizeGreaterThan(4);
        assertThat(seen.stream().filter(N1::equals).count()).isGreaterThan(1);
    }

    @Test
    void fingerLazy_leavesFingersWrongLongAfterTheRingIsStable() {
        int wrong = 0;
        for (long seed = 1; seed <= 5; seed++) {
            Views views = new Views(BEFORE_FAILURE_MILLIS);
            SimulatedRuns.Run run = run(seed, Optional.of("finger-lazy"), views);
            assertThat(views.problemsAtEnd().get(ChordRing.Property.RING_CONSISTENCY)).as(run.command()).isEmpty();
            if (!views.problemsAtEnd().get(ChordRing.Property.FINGERS_CORRECT).isEmpty()) {
                wrong++;
            }
            if (!views.problemsBeforePoint().get(ChordRing.Property.FINGERS_CORRECT).isEmpty()) {
                wrong++;
            }
        }
        // The correct protocol has every finger right at both points on every seed (ring_withoutBug_...).
        assertThat(wrong).as("runs of five seeds x two points with fingers still wrong 3 s after a change")
                .isGreaterThan(2);
    }

    /** What the nodes of a simulated cluster of {@code settings} logged; a handler that throws is logged, not fatal. */
    private List<String> nodeOutput(SimulationSettings settings, String name) {
        List<String> lines = new ArrayList<>();
        Simulator.run(settings, temporary.resolve(name), Simulator.Options.of(settings).withNodeOutput(lines::add));
        return lines;
    }

    @Test
    void onStart_refusesAnUnknownBug_andKeysThatCollide() {
        assertThat(nodeOutput(SimulationSettings.builder().node(N1, ChordNode.class.getName(), Map.of("bug", "nope"))
                .build(), "nope")).anySatisfy(line -> assertThat(line).contains("handler threw")
                .contains("unknown Chord bug 'nope'").contains("finger-boundary"));
        NodeId twin = IntStream.range(0, 100_000).mapToObj(i -> new NodeId("x" + i))
                .filter(id -> ChordRing.key(id) == ChordRing.key(N1)).findFirst().orElseThrow();
        assertThat(nodeOutput(SimulationSettings.builder().node(N1, ChordNode.class.getName(), Map.of())
                .node(twin, ChordNode.class.getName(), Map.of()).build(), "twins"))
                .anySatisfy(line -> assertThat(line).contains("handler threw")
                        .contains("both hash to key " + ChordRing.key(N1)).contains("distinct keys"));
    }
}
