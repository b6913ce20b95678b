package dev.deja.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.testing.GossipNode;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs three real node processes on loopback with message loss and a {@code kill -9} and restart, then
 * checks the trace: per-node seq contiguous, Lamport strictly increasing per node, and every receive
 * matching a recorded send with a smaller clock and the same content digest.
 */
class LoopbackDeploymentIT {
    @TempDir
    Path temporary;

    @Test
    void deploy_recordsATraceThatSatisfiesTheHappensBeforeRules() throws Exception {
        Map<NodeId, ClusterSpec.Member> nodes = new LinkedHashMap<>();
        for (String id : List.of("n1", "n2", "n3")) {
            nodes.put(new NodeId(id), new ClusterSpec.Member("127.0.0.1:" + Deployment.freeLoopbackPort(), GossipNode.class.getName(), Map.of()));
        }
        ClusterSpec cluster = new ClusterSpec(nodes, Map.of(), FaultModel.builder().dropProbability(0.1).delayMillis(0, 5).seed(11).build());
        Path trace = temporary.resolve("trace");
        Deployment.Plan plan = new Deployment.Plan(cluster, Optional.empty(), Optional.of(trace), temporary.resolve("work"),
                Duration.ofSeconds(4), List.of(
                        new Deployment.NodeAction(Deployment.NodeAction.Kind.KILL, new NodeId("n3"), Duration.ofMillis(1500)),
                        new Deployment.NodeAction(Deployment.NodeAction.Kind.RESTART, new NodeId("n3"), Duration.ofMillis(2000))),
                System.getProperty("java.class.path"), Map.of("test", true), "LoopbackDeploymentIT", List.of(),
                Deployment.Plan.Ports.CHOSEN_FREE);
        new Deployment(plan, System.out).run();

        Trace opened = Trace.open(trace);
        assertThat(opened.nodes()).extracting(log -> log.node().value()).containsExactly("n1", "n2", "n3");
        TraceSummary summary = opened.summary().orElseThrow();
        assertThat(summary.events()).extracting(TraceSummary.LauncherEvent::action).containsExactly("kill", "restart");

        Map<NodeId, List<TraceEvent>> logs = new HashMap<>();
        for (NodeLog log : opened.nodes()) {
            List<TraceEvent> events = new ArrayList<>();
            try (NodeLog.Cursor cursor = log.cursor()) {
                cursor.forEachRemaining(events::add);
            }
            logs.put(log.node(), events);
            assertThat(log.manifest().completed()).as("%s stopped cleanly at the end", log.node()).isTrue();
        }

        record SendKey(NodeId from, long messageId) {
        }
        Map<SendKey, TraceEvent> sends = new HashMap<>();
        for (List<TraceEvent> events : logs.values()) {
            for (int i = 0; i < events.size(); i++) {
                TraceEvent event = events.get(i);
                assertThat(event.seq()).as("seq-contiguous at %s", event).isEqualTo(i);
                if (i > 0) {
                    assertThat(event.lamport()).as("lamport-increasing at %s", event).isGreaterThan(events.get(i - 1).lamport());
                }
                if (event.event() instanceof Event.Send send) {
                    assertThat(sends.put(new SendKey(event.node(), send.messageId()), event)).as("unique message id").isNull();
                }
            }
        }
        long receives = 0;
        for (List<TraceEvent> events : logs.values()) {
            for (TraceEvent event : events) {
                if (event.event() instanceof Event.Receive receive) {
                    receives++;
                    TraceEvent sendEvent = sends.get(new SendKey(receive.from(), receive.messageId()));
                    assertThat(sendEvent).as("recorded send of %s", event).isNotNull();
                    Event.Send send = (Event.Send) sendEvent.event();
                    assertThat(send.to()).isEqualTo(event.node());
                    assertThat(receive.fromLamport()).isEqualTo(sendEvent.lamport());
                    assertThat(sendEvent.lamport()).isLessThan(event.lamport());
                    assertThat(send.digest()).isEqualTo(MessageCodec.digest(receive.message()));
                }
            }
        }
        assertThat(receives).as("messages delivered").isGreaterThan(100);
        assertThat(sends.size() - receives).as("messages lost to the 10% drop and the kill").isPositive();

        List<TraceEvent> n3 = logs.get(new NodeId("n3"));
        assertThat(n3).filteredOn(e -> e.event() instanceof Event.Crash).singleElement()
                .satisfies(crash -> assertThat(((Event.Crash) crash.event()).crashedIncarnation()).isEqualTo(1));
        assertThat(n3).filteredOn(e -> e.event() instanceof Event.Start).extracting(TraceEvent::incarnation)
                .containsExactly(1, 2);
        NodeLog n3Log = opened.node(new NodeId("n3"));
        assertThat(n3Log.manifest().incarnations()).extracting(i -> i.completed()).containsExactly(false, true);
    }
}
