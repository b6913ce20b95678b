package dev.deja.examples.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.examples.Examples;
import dev.deja.examples.store.StoreMessage.Copy;
import dev.deja.examples.store.StoreMessage.Drop;
import dev.deja.examples.store.StoreMessage.Heartbeat;
import dev.deja.examples.store.StoreMessage.MoveDone;
import dev.deja.examples.store.StoreMessage.MoveRefused;
import dev.deja.examples.store.StoreMessage.MoveRejected;
import dev.deja.examples.store.StoreMessage.MoveRequest;
import dev.deja.examples.store.StoreMessage.Publish;
import dev.deja.examples.store.StoreMessage.PublishAck;
import dev.deja.examples.store.StoreMessage.Put;
import dev.deja.examples.store.StoreMessage.PutDone;
import dev.deja.examples.store.StoreMessage.Store;
import dev.deja.examples.store.StoreMessage.Unpublish;
import dev.deja.examples.testing.SimCluster;
import dev.deja.node.NodeId;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StoreExampleTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    @Test
    void registry_listsTheStoreWithItsBugs() {
        StoreExample example = (StoreExample) Examples.byName("store").orElseThrow();
        assertThat(example.bugs().keySet()).containsExactly("balance-race", "transient-failure");
        assertThat(example.nodeClass()).isEqualTo(StoreNode.class);
        assertThat(example.driverClass()).contains(StoreClient.class);
        assertThat(example.defaultNodes()).isEqualTo(8);
        assertThat(example.nodeArgs(Optional.of("balance-race"))).containsEntry("bug", "balance-race");
    }

    @Test
    void messages_roundTripThroughTheCodec() {
        MessageCodec codec = MessageCodec.defaultCodec();
        List<Object> messages = List.of(new Heartbeat(2, 9), new Put("obj-01", "data", new NodeId("client"), 1),
                new PutDone("obj-01"), new Store("obj-01", "data", null), new Store("obj-01", "data", N1),
                new Publish("obj-01", (2L << 32) | 7), new PublishAck("obj-01", 2), new Copy("obj-01", N2),
                new Drop("obj-01"), new MoveRequest("obj-01", N2), new MoveRejected("obj-01"),
                new MoveRefused("obj-01"), new MoveDone("obj-01"), new Unpublish("obj-01", 8), "heartbeat");
        for (Object message : messages) {
            Payload payload = codec.encode(message);
            assertThat(codec.decode(payload)).isEqualTo(message);
        }
    }

    @Test
    void nodesAndClient_haveNoArgConstructors() throws ReflectiveOperationException {
        assertThat(StoreNode.class.getConstructor().newInstance()).isNotNull();
        assertThat(StoreClient.class.getConstructor().newInstance().finished()).isFalse();
    }

    @Test
    void ring_ownerIsTheFirstLiveSuccessor_wrappingAround() {
        List<NodeId> nodes = List.of(N1, N2, new NodeId("n3"));
        Ring ring = new Ring(nodes);
        List<NodeId> all = ring.successors(0, Set.copyOf(nodes), 3);
        assertThat(all).containsExactlyInAnyOrderElementsOf(nodes);
        NodeId first = all.get(0);
        long firstPosition = Ring.position(first.value());
        assertThat(ring.owner(firstPosition, Set.copyOf(nodes))).isEqualTo(first);
        assertThat(ring.owner(firstPosition + 1, Set.copyOf(nodes))).isEqualTo(all.get(1));
        // Past the last node the ring wraps to the first; a node that is not live is skipped.
        assertThat(ring.owner(Ring.position(all.get(2).value()) + 1, Set.copyOf(nodes))).isEqualTo(first);
        assertThat(ring.owner(firstPosition, Set.of(all.get(1), all.get(2)))).isEqualTo(all.get(1));
        assertThat(ring.owner(0, Set.of())).isNull();
    }

    @Test
    void start_withAnUnknownBugOrABadTimeout_isRefusedWithTheValidChoices() {
        SimCluster unknownBug = new SimCluster(1, new SimCluster.Network(0, 10, 0, 10, 0)).server("n1", StoreNode::new);
        assertThatThrownBy(() -> unknownBug.start(Map.of("bug", "nope")))
                .hasMessageContaining("unknown store bug 'nope'").hasMessageContaining("balance-race, transient-failure");
        SimCluster badTimeout = new SimCluster(1, new SimCluster.Network(0, 10, 0, 10, 0)).server("n1", StoreNode::new);
        assertThatThrownBy(() -> badTimeout.start(Map.of(StoreNode.FAILURE_TIMEOUT_ARG, "soon")))
                .hasMessageContaining("failure-timeout-ms must be a number of milliseconds above 1000, was 'soon'");
    }
}
