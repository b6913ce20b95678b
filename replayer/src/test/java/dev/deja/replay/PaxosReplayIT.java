package dev.deja.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.paxos.PaxosClient;
import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.Deployment;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a real seven-process Paxos deployment (the paper's setting: 30% message loss) and a {@code kill -9} and restart, then
 * replays it: no divergence, every incarnation replayed, and the same listener calls on a second replay.
 */
class PaxosReplayIT {
    private static final NodeId N2 = new NodeId("n2");

    @TempDir
    static Path temporary;

    private static Path trace;

    @BeforeAll
    static void recordDeployment() throws Exception {
        Map<NodeId, ClusterSpec.Member> nodes = new LinkedHashMap<>();
        for (String id : List.of("n1", "n2", "n3", "n4", "n5", "n6", "n7")) {
            nodes.put(new NodeId(id), new ClusterSpec.Member("127.0.0.1:" + freePort(), PaxosNode.class.getName(), Map.of()));
        }
        NodeId client = new NodeId("client");
        ClusterSpec cluster = new ClusterSpec(nodes,
                Map.of(client, new ClusterSpec.Member("127.0.0.1:" + freePort(), PaxosClient.class.getName(), Map.of())),
                new ClusterSpec.Faults(0.3, 5));
        trace = temporary.resolve("trace");
        Deployment.Plan plan = new Deployment.Plan(cluster, Optional.of(client), Optional.of(trace),
                temporary.resolve("work"), Duration.ofSeconds(4), List.of(
                        new Deployment.NodeAction(Deployment.NodeAction.Kind.KILL, N2, Duration.ofMillis(600)),
                        new Deployment.NodeAction(Deployment.NodeAction.Kind.RESTART, N2, Duration.ofMillis(1000))),
                System.getProperty("java.class.path"), Map.of("test", true), "PaxosReplayIT");
        new Deployment(plan, System.out).run();
    }

    @Test
    void replay_ofAPaxosDeploymentWithAKill_hasNoDivergence() {
        List<String> incarnationsSeen = new ArrayList<>();
        long[] crashes = {0};
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (event.entry().event() instanceof Event.Crash) {
                        crashes[0]++;
                    }
                    if (event.entry().event() instanceof Event.Start && event.entry().node().equals(N2)) {
                        incarnationsSeen.add(state.incarnation(N2) + ":" + state.node(N2).map(n -> n.getClass().getSimpleName()).orElse("-"));
                    }
                }));
        System.out.printf("PaxosReplayIT: replayed %d entries (%d handler calls) of %d nodes in %.3f s (%.0f entries/s)%n",
                result.entries(), result.handlerCalls(), result.nodes(), result.elapsed().toNanos() / 1e9,
                result.entriesPerSecond());
        result.divergences().forEach(d -> System.out.println(d.describe()));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(7);
        assertThat(crashes[0]).as("n2 was killed and restarted").isEqualTo(1);
        assertThat(incarnationsSeen).containsExactly("1:PaxosNode", "2:PaxosNode");
    }

    @Test
    void replay_twice_givesIdenticalListenerCalls() {
        assertThat(listenerCalls()).isEqualTo(listenerCalls());
    }

    private static List<String> listenerCalls() {
        List<String> calls = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> calls.add(position + " " + event
                        + " " + state.nodes().keySet() + " " + state.incarnation(N2))));
        assertThat(result.divergences()).isEmpty();
        return calls;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
