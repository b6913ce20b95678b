package dev.deja.examples.randtree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.Examples;
import dev.deja.examples.randtree.TreeMessage.JoinStatus;
import dev.deja.examples.testing.InMemoryRuns;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RandTreeExampleTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    @Test
    void registry_listsRandTreeWithItsBugs() {
        RandTreeExample example = (RandTreeExample) Examples.byName("randtree").orElseThrow();
        assertThat(example.bugs().keySet()).containsExactly("sibling-not-removed", "stale-child-on-new-root",
                "root-keeps-siblings", "no-recovery-timer");
        assertThat(example.nodeClass()).isEqualTo(RandTreeNode.class);
        assertThat(example.driverClass()).contains(RandTreeClient.class);
        assertThat(example.nodeArgs(Optional.of("no-recovery-timer"))).containsEntry("bug", "no-recovery-timer");
        assertThat(example.arguments().keySet()).containsExactly("maxChildren=N", "bootstrap=NODE",
                "topology=all|two-trees");
    }

    @Test
    void messages_roundTripThroughTheCodec() {
        MessageCodec codec = MessageCodec.defaultCodec();
        List<Object> messages = List.of(new TreeMessage.Join(N2, null, 1L << 32 | 1, 0),
                new TreeMessage.Join(N2, N1, 5, 3), new TreeMessage.JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2), 5),
                new TreeMessage.UpdateSiblings(N1, List.of()), new TreeMessage.NewRoot(N1), new TreeMessage.Heartbeat(),
                new TreeMessage.Remove(), new TreeMessage.Rejoin(null), new TreeMessage.Probe(N1),
                new TreeMessage.ProbeJoin(N1), new TreeMessage.StatusQuery(),
                new TreeMessage.Status(RandTreeNode.JoinState.JOINED, N1, null, List.of(N2), List.of()), "recovery");
        for (Object message : messages) {
            Payload payload = codec.encode(message);
            assertThat(codec.decode(payload)).isEqualTo(message);
        }
    }

    /** What n1 of a two-node cluster logs when it starts with {@code args}: a handler that throws is logged. */
    private static List<String> startOutput(Map<String, String> args) {
        return InMemoryRuns.nodeOutput(SimulationSettings.builder().node(N1, RandTreeNode.class.getName(), args)
                .node(N2, RandTreeNode.class.getName(), Map.of()).maxVirtualMillis(1).build());
    }

    @Test
    void unknownBug_isRefusedNamingTheValidOnes() {
        assertThat(startOutput(Map.of("bug", "typo"))).anySatisfy(line -> assertThat(line).contains("handler threw")
                .contains("unknown RandTree bug 'typo'").contains("sibling-not-removed"));
    }

    @Test
    void badArguments_areRefusedNamingTheNodeAndTheValue() {
        assertThat(startOutput(Map.of("maxChildren", "x"))).anySatisfy(line -> assertThat(line)
                .contains("node n1: maxChildren must be a positive integer, was 'x'"));
        assertThat(startOutput(Map.of("bootstrap", "n9"))).anySatisfy(line -> assertThat(line)
                .contains("node n1: bootstrap n9 is not in the cluster [n1, n2]"));
        assertThat(startOutput(Map.of("topology", "ring"))).anySatisfy(line -> assertThat(line)
                .contains("node n1: unknown topology 'ring'; valid topologies: all, two-trees"));
    }

    @Test
    void describe_drawsTheTreeAndTheNodesLeftOut() {
        Map<NodeId, TreeViews.View> views = Map.of(
                N1, view(RandTreeNode.JoinState.JOINED, N1, null, List.of(N2)),
                N2, view(RandTreeNode.JoinState.JOINED, N1, N1, List.of()),
                new NodeId("n3"), view(RandTreeNode.JoinState.JOINING, new NodeId("n3"), null, List.of()));
        assertThat(TreeViews.describe(views)).isEqualTo("n1(n2) [n3:joining]");
        assertThat(TreeViews.consistent(views)).isFalse();
    }

    private static TreeViews.View view(RandTreeNode.JoinState state, NodeId root, NodeId parent, List<NodeId> children) {
        return new TreeViews.View(state, root, parent, new java.util.TreeSet<>(children), new java.util.TreeSet<>(),
                true);
    }
}
