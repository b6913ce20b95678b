package dev.deja.examples.store;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import java.util.ArrayList;
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

    /** What n1 logs when it starts with {@code args} on the simulator: a handler that throws is logged. */
    private static List<String> startOutput(Map<String, String> args) {
        SimulationSettings settings = SimulationSettings.builder().node(N1, StoreNode.class.getName(), args)
                .maxVirtualMillis(1).build();
        List<String> lines = new ArrayList<>();
        Simulator.runInMemory(settings, Simulator.Options.of(settings).withNodeOutput(lines::add));
        return lines;
    }

    @Test
    void start_withAnUnknownBugOrABadTimeout_isRefusedWithTheValidChoices() {
        assertThat(startOutput(Map.of("bug", "nope"))).anySatisfy(line -> assertThat(line).contains("handler threw")
                .contains("unknown store bug 'nope'").contains("balance-race, transient-failure"));
        assertThat(startOutput(Map.of(StoreNode.FAILURE_TIMEOUT_ARG, "soon"))).anySatisfy(line -> assertThat(line)
                .contains("failure-timeout-ms must be a number of milliseconds above 1000, was 'soon'"));
    }
}
