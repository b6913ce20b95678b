package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.view.TraceComparison;
import dev.deja.view.TraceComparison.Divergence;
import dev.deja.view.TraceComparison.NodeDifference;
import dev.deja.view.TraceComparison.Side;
import dev.deja.view.TraceModel;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceComparisonTest {
    /** n1 sends "a" to n2, which receives it; both runs do the same so far. */
    private static CraftedTrace prefix() {
        CraftedTrace run = new CraftedTrace("n1", "n2", "n3");
        run.start("n1").start("n2").start("n3");
        run.receive(run.send("n1", "n2", "a"));
        return run;
    }

    private static int at(TraceModel model, String node, int seq) {
        return model.positionOf(model.lane(new NodeId(node)), seq);
    }

    private static NodeDifference of(TraceComparison comparison, String node) {
        return comparison.differences().stream().filter(d -> d.node().value().equals(node)).findFirst().orElseThrow();
    }

    @Test
    void of_twoEqualRuns_isIdenticalWithEveryEntryCommon() {
        TraceModel a = prefix().model("a");
        TraceModel b = prefix().model("b");

        TraceComparison comparison = TraceComparison.of(a, b);

        assertThat(comparison.identical()).isTrue();
        assertThat(comparison.commonSize()).isEqualTo(a.size());
        assertThat(comparison.firstDifference(Side.A)).isEmpty();
        assertThat(comparison.firstNodeDifference()).isEmpty();
        assertThat(comparison.differences()).extracting(NodeDifference::divergence).containsOnly(Divergence.NONE);
    }

    @Test
    void of_runsPartingAtATimer_marksTheTimerAsFirstDifference() {
        CraftedTrace runA = prefix();
        runA.timer("n3", 7, "left");
        runA.receive(runA.send("n2", "n1", "after"));
        CraftedTrace runB = prefix();
        runB.timer("n3", 7, "right");
        runB.receive(runB.send("n2", "n1", "after"));
        TraceModel a = runA.model("a");
        TraceModel b = runB.model("b");

        TraceComparison comparison = TraceComparison.of(a, b);

        int timerA = at(a, "n3", 1);
        assertThat(comparison.identical()).isFalse();
        assertThat(comparison.firstDifference(Side.A)).hasValue(timerA);
        assertThat(comparison.firstDifference(Side.B)).hasValue(at(b, "n3", 1));
        assertThat(comparison.commonSize()).isEqualTo(a.size() - 1);
        assertThat(comparison.commonCount(new NodeId("n3"))).isEqualTo(1);
        assertThat(comparison.commonCount(new NodeId("n1"))).isEqualTo(3);
        NodeDifference n3 = of(comparison, "n3");
        assertThat(n3.divergence()).isEqualTo(Divergence.DIFFERENT_ENTRY);
        assertThat(n3.ordinal()).isEqualTo(1);
        assertThat(n3.inA()).isPresent();
        assertThat(n3.inB()).isPresent();
        assertThat(of(comparison, "n1").divergence()).isEqualTo(Divergence.NONE);
        assertThat(comparison.firstNodeDifference()).map(d -> d.node().value()).hasValue("n3");
    }

    @Test
    void of_aReceiveOfAMessageSentAfterADifference_leavesThePrefixThoughEqual() {
        // n1 reads another clock value in B, then sends the same message: n2's receive is the same entry in both
        // runs (same sender, id, clock, content) but follows a difference, so it is not common.
        CraftedTrace runA = prefix();
        runA.clock("n1", 10);
        CraftedTrace.Sent sentA = runA.send("n1", "n2", "m");
        runA.receive(sentA);
        CraftedTrace runB = prefix();
        runB.clock("n1", 99);
        CraftedTrace.Sent sentB = runB.send("n1", "n2", "m");
        runB.receive(sentB);
        TraceModel a = runA.model("a");
        TraceModel b = runB.model("b");

        TraceComparison comparison = TraceComparison.of(a, b);

        NodeDifference n2 = of(comparison, "n2");
        assertThat(n2.divergence()).isEqualTo(Divergence.AFTER_A_DIFFERENCE);
        assertThat(n2.inA()).isEqualTo(n2.inB());
        assertThat(comparison.isCommon(Side.A, at(a, "n2", 2))).isFalse();
        assertThat(of(comparison, "n1").divergence()).isEqualTo(Divergence.DIFFERENT_ENTRY);
        assertThat(comparison.firstDifference(Side.A)).hasValue(at(a, "n1", 2));
    }

    @Test
    void of_aRunThatGoesOnLonger_saysOnlyInB() {
        CraftedTrace runB = prefix();
        runB.timer("n3", 7, "later");
        TraceComparison comparison = TraceComparison.of(prefix().model("a"), runB.model("b"));

        assertThat(comparison.firstDifference(Side.A)).isEmpty();
        assertThat(comparison.firstDifference(Side.B)).isPresent();
        NodeDifference n3 = of(comparison, "n3");
        assertThat(n3.divergence()).isEqualTo(Divergence.ONLY_IN_B);
        assertThat(n3.inA()).isEmpty();
    }

    @Test
    void counterpartAndAligned_mapThePrefixEntryByEntryAndThePartByDistance() {
        CraftedTrace runA = prefix();
        runA.timer("n3", 7, "left").timer("n3", 8, "again");
        CraftedTrace runB = prefix();
        runB.timer("n3", 7, "right").timer("n3", 8, "again").timer("n3", 9, "more");
        TraceModel a = runA.model("a");
        TraceModel b = runB.model("b");
        TraceComparison comparison = TraceComparison.of(a, b);

        for (int position = 0; position < a.size(); position++) {
            if (comparison.isCommon(Side.A, position)) {
                int other = comparison.counterpart(Side.A, position);
                assertThat(b.laneOf(other)).isEqualTo(a.laneOf(position));
                assertThat(b.ordinal(other)).isEqualTo(a.ordinal(position));
                assertThat(comparison.counterpart(Side.B, other)).isEqualTo(position);
            } else {
                assertThat(comparison.counterpart(Side.A, position)).isEqualTo(-1);
            }
        }
        int timerA = at(a, "n3", 2);
        assertThat(comparison.aligned(Side.A, timerA)).isEqualTo(at(b, "n3", 2));
        assertThat(comparison.aligned(Side.B, at(b, "n3", 3))).isEqualTo(timerA); // A's n3 has no fourth entry
        assertThat(comparison.cut(Side.A, timerA)).containsExactly(2, 2, 3);
        assertThat(comparison.cut(Side.B, b.size() - 1)).containsExactly(2, 2, 4);
    }

    @Test
    void of_runsOfOtherNodes_isRefusedNamingBoth() {
        CraftedTrace other = new CraftedTrace("n1", "n2");
        other.start("n1").start("n2");

        assertThatThrownBy(() -> TraceComparison.of(prefix().model("runs/a"), other.model("runs/b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("runs/a and runs/b are runs of different clusters: runs/a has nodes n1, n2, n3, runs/b has n1, n2");
    }

    @Test
    void summaryAndStateText_ofCraftedRuns_matchTheGoldenFile() throws IOException {
        CraftedTrace runA = prefix();
        runA.timer("n3", 7, "left");
        runA.clock("n1", 10);
        runA.receive(runA.send("n1", "n2", "m"));
        CraftedTrace runB = prefix();
        runB.timer("n3", 7, "right");
        runB.clock("n1", 99);
        runB.receive(runB.send("n1", "n2", "m"));
        TraceComparison comparison = TraceComparison.of(runA.model("runs/violating"), runB.model("runs/live"));
        ObjectTree n1 = node("n1", "JOINED", List.of("n2", "n3"), true);
        ObjectTree n1Live = node("n1", "JOINED", List.of("n2"), false);
        ObjectTree n2 = node("n2", "JOINING", List.of(), true);
        ObjectTree n3 = node("n3", "INIT", List.of(), false);
        Map<NodeId, ObjectTree> inA = Map.of(new NodeId("n1"), n1, new NodeId("n2"), n2, new NodeId("n3"), n3);
        Map<NodeId, ObjectTree> inB = Map.of(new NodeId("n1"), n1Live, new NodeId("n2"), n2);

        ComparedStates states = ComparedStates.of(4, 4, comparison.a().nodes(), inA, inB);

        assertThat(states.differingNodes()).isEqualTo(2); // n1's members, and n3 running in A only
        Golden.assertText("compare-crafted.txt", Comparisons.summary(comparison) + states.text(false));
    }

    /** A node's state as the renderer draws one: a state, a set of children, a flag. */
    private static ObjectTree node(String name, String state, List<String> children, boolean timer) {
        List<ObjectTree> elements = children.stream()
                .map(c -> ObjectTree.leaf(ObjectTree.ELEMENT + "\"" + c + "\"", "NodeId", "\"" + c + "\"")).toList();
        return new ObjectTree(name, "RandTreeNode", "RandTreeNode", List.of(
                ObjectTree.leaf("state", "JoinState", state),
                new ObjectTree("children", "TreeSet", "TreeSet (" + children.size() + " elements)", elements),
                ObjectTree.leaf("recoveryTimer", timer ? "TimerId" : "", timer ? "TimerId[3]" : "null")));
    }
}
