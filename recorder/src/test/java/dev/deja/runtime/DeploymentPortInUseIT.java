package dev.deja.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.GossipNode;
import dev.deja.trace.Event;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A port chosen free for a node that another process takes before the node binds it: a deployment on ports it chose
 * starts again on other free ports, saying so, and records a trace with one incarnation per node; on ports the user
 * gave, the start fails naming the node and its address. The port is taken here by a listening socket, which also
 * answers a connection: the deployment must wait for the node itself, not for anything that accepts on its port.
 */
class DeploymentPortInUseIT {
    @TempDir
    Path temporary;

    private static Deployment.Plan plan(Path trace, Path work, Deployment.Plan.Ports ports) {
        Map<NodeId, ClusterSpec.Member> nodes = new LinkedHashMap<>();
        for (String id : List.of("n1", "n2")) {
            nodes.put(new NodeId(id), new ClusterSpec.Member("127.0.0.1:" + Deployment.freeLoopbackPort(),
                    GossipNode.class.getName(), Map.of()));
        }
        ClusterSpec cluster = new ClusterSpec(nodes, Map.of(), FaultModel.NONE);
        return new Deployment.Plan(cluster, Optional.empty(), Optional.of(trace), work, Duration.ofSeconds(1), List.of(),
                System.getProperty("java.class.path"), Map.of(), "DeploymentPortInUseIT", List.of(), ports);
    }

    @Test
    void start_onChosenPorts_whenAnotherProcessTookOne_startsAgainOnOtherPorts() throws Exception {
        Path trace = temporary.resolve("trace");
        Deployment.Plan plan = plan(trace, temporary.resolve("work"), Deployment.Plan.Ports.CHOSEN_FREE);
        int taken = plan.cluster().member(new NodeId("n2")).socketAddress().getPort();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (ServerSocket thief = new ServerSocket(taken, 50, InetAddress.getLoopbackAddress())) {
            new Deployment(plan, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(output).contains("deja: n2 could not listen on 127.0.0.1:" + taken
                + ": another process took that port after it was chosen free; starting the nodes again on other free"
                + " ports (attempt 2 of 3)").contains("2 nodes up on loopback");
        Trace opened = Trace.open(trace);
        assertThat(opened.nodes()).extracting(log -> log.node().value()).containsExactly("n1", "n2");
        for (NodeLog log : opened.nodes()) {
            // Nothing of the failed start is left: each node started once, as incarnation 1, and stopped cleanly.
            assertThat(log.manifest().incarnations()).as(log.node().value()).hasSize(1);
            assertThat(log.manifest().completed()).as(log.node().value()).isTrue();
            try (NodeLog.Cursor cursor = log.cursor()) {
                TraceEvent first = cursor.next();
                assertThat(first.event()).isInstanceOf(Event.Start.class);
                assertThat(first.incarnation()).isEqualTo(1);
            }
        }
        ClusterSpec used = ClusterSpec.read(temporary.resolve("work/cluster.json"));
        assertThat(used.member(new NodeId("n2")).socketAddress().getPort()).isNotEqualTo(taken);
    }

    @Test
    void start_onTheUsersPorts_whenOneIsTaken_failsNamingTheNodeAndAddress() throws Exception {
        Deployment.Plan plan = plan(temporary.resolve("fixed"), temporary.resolve("fixed-work"), Deployment.Plan.Ports.FIXED);
        int taken = plan.cluster().member(new NodeId("n2")).socketAddress().getPort();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (ServerSocket thief = new ServerSocket(taken, 50, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> new Deployment(plan, new PrintStream(printed, true, StandardCharsets.UTF_8)).run())
                    .isInstanceOfSatisfying(Deployment.StartFailure.class, failure -> {
                        assertThat(failure.node()).isEqualTo(new NodeId("n2"));
                        assertThat(failure.addressInUse()).isTrue();
                        assertThat(failure.getMessage()).contains("node n2 exited with status " + 75)
                                .contains("cannot listen on /127.0.0.1:" + taken);
                    });
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).doesNotContain("starting the nodes again");
    }
}
