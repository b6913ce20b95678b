package dev.deja.examples.chord;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The identifier ring's arithmetic, which the scenario and the checks rely on. */
class ChordRingTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N4 = new NodeId("n4");
    private static final NodeId N9 = new NodeId("n9");

    @Test
    void keys_ofTheScenario_areDistinct_andN4sSixthFingerStartsExactlyAtN1() {
        Set<Integer> keys = new HashSet<>();
        IntStream.rangeClosed(1, 57).forEach(i -> assertThat(keys.add(ChordRing.key(new NodeId("n" + i))))
                .as("key of n%d is new", i).isTrue());
        assertThat(ChordRing.fingerStart(ChordRing.key(N4), 6)).isEqualTo(ChordRing.key(N1));
        assertThat(ChordDriver.failingNode(IntStream.rangeClosed(1, 10).mapToObj(i -> new NodeId("n" + i)).toList()))
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
}
