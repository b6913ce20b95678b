package dev.deja.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.testing.IdentityHashNode;
import dev.deja.replay.testing.InProcessCluster;
import dev.deja.replay.testing.NanoTimeNode;
import dev.deja.replay.testing.PingNode;
import dev.deja.replay.testing.StaticCounterNode;
import dev.deja.trace.Event;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Trace;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replays traces recorded in this process (real Chronicle logs, no processes). */
class ReplayerIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final NodeId N3 = new NodeId("n3");

    @TempDir
    Path trace;

    private void recordPingCluster() {
        Map<NodeId, Class<? extends Node>> nodes = new LinkedHashMap<>();
        nodes.put(N1, PingNode.class);
        nodes.put(N2, PingNode.class);
        nodes.put(N3, PingNode.class);
        new InProcessCluster(trace, nodes, 11).run(500);
    }

    private static List<String> listenerCalls(Trace trace, Replayer.Options options) {
        List<String> calls = new ArrayList<>();
        ReplayResult result = Replayer.replay(trace, options.withListener((event, position, state) -> {
            StringBuilder nodes = new StringBuilder();
            state.nodes().forEach((id, node) -> nodes.append(id).append('/').append(state.incarnation(id)).append('=')
                    .append(((PingNode) node).received()).append(' '));
            calls.add(position + " " + event.startedHandler() + " " + event.entry() + " | " + nodes);
        }));
        assertThat(result.divergences()).isEmpty();
        return calls;
    }

    @Test
    void replay_ofAnInProcessRecording_hasNoDivergence() {
        recordPingCluster();
        Trace opened = Trace.open(trace);
        ReplayResult result = Replayer.replay(opened, Replayer.Options.defaults());
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(3);
        assertThat(result.entries()).isGreaterThan(50);
        assertThat(result.handlerCalls()).isGreaterThan(10).isLessThan(result.entries());
    }

    @Test
    void replay_twice_givesIdenticalListenerCalls() {
        recordPingCluster();
        List<String> first = listenerCalls(Trace.open(trace), Replayer.Options.defaults());
        List<String> second = listenerCalls(Trace.open(trace), Replayer.Options.defaults());
        assertThat(first).hasSizeGreaterThan(50);
        assertThat(second).isEqualTo(first);
        assertThat(first.getLast()).contains("n1/1=").contains("n2/1=").contains("n3/1=");
    }

    @Test
    void replay_untilPosition_stopsAfterThatManyMergedEntries() {
        recordPingCluster();
        List<String> all = listenerCalls(Trace.open(trace), Replayer.Options.defaults());
        List<String> some = listenerCalls(Trace.open(trace), Replayer.Options.defaults().withUntilPosition(17));
        assertThat(some).isEqualTo(all.subList(0, 17));
    }

    @Test
    void replay_ofOneNode_replaysItsReceivesFromItsOwnLog() {
        recordPingCluster();
        List<String> calls = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withOnlyNode(N2)
                .withListener((event, position, state) -> calls.add(event.entry().node().value())));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(1);
        assertThat(calls).isNotEmpty().containsOnly("n2");
    }

    @Test
    void replay_ofTwoNodes_replaysBothInTheMergedOrderOfAll() {
        recordPingCluster();
        List<String> withoutN2 = new ArrayList<>();
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (!event.entry().node().equals(N2)) {
                withoutN2.add(event.entry().toString());
            }
        }));
        List<String> some = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withOnlyNodes(List.of(N3, N1))
                .withListener((event, position, state) -> some.add(event.entry().toString())));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(2);
        // Ordered by (Lamport clock, node, seq): leaving a node's log out does not reorder the others.
        assertThat(some).hasSizeGreaterThan(20).isEqualTo(withoutN2);
    }

    @Test
    void replay_detectsANodeThatBehavesDifferently() {
        new InProcessCluster(trace, Map.of(N1, StaticCounterNode.class), 1).run(100);
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
        assertThat(result.divergences()).singleElement().satisfies(divergence -> {
            assertThat(divergence.node()).isEqualTo(N1);
            assertThat(divergence.incarnation()).isEqualTo(1);
            // seq 0 start, 1 send Count(0), 2 receive Count(0), 3 random draw, 4 send: the counter differs
            assertThat(divergence.seq()).isEqualTo(4);
            // Entries as deja dump prints them.
            assertThat(divergence.expected()).contains("seq 4").contains("send").contains("to n1");
            assertThat(divergence.actual()).contains("send").contains("to n1").contains("digest");
            assertThat(divergence.actual()).isNotEqualTo(divergence.expected());
            assertThat(divergence.recentEvents()).hasSize(4);
            assertThat(divergence.recentEvents().getLast().event()).isInstanceOf(Event.RandomDraw.class);
            assertThat(divergence.describe()).contains("divergence at node n1 (incarnation 1), seq 4")
                    .contains("expected:").contains("actual:")
                    // the received Count as JSON, as dump shows it, not as the bytes of its encoding
                    .contains("receive").contains("Count {").doesNotContain("Payload[");
        });
    }

    @Test
    void replay_ofANodeReadingNanoTime_reportsItsFirstSend() {
        new InProcessCluster(trace, Map.of(N1, NanoTimeNode.class), 1).run(10);
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
        assertThat(result.divergences()).singleElement().satisfies(divergence -> {
            // seq 0 start, 1 random draw, 2 the send whose content came from System.nanoTime()
            assertThat(divergence.seq()).isEqualTo(2);
            assertThat(divergence.expected()).contains("to n1").contains("Stamp");
            assertThat(divergence.actual()).contains("to n1").isNotEqualTo(divergence.expected());
        });
    }

    @Test
    void replay_ofANodeIteratingAnIdentityHashMap_reportsTheSendThatRevealsTheOrder() {
        new InProcessCluster(trace, Map.of(N1, IdentityHashNode.class), 1).run(10);
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
        assertThat(result.divergences()).singleElement().satisfies(divergence -> {
            // seq 0 start, 1 the deterministic send (matches), 2 the send of the iteration order
            assertThat(divergence.seq()).isEqualTo(2);
            assertThat(divergence.expected()).contains("Order");
            assertThat(divergence.actual()).isNotEqualTo(divergence.expected());
        });
    }

    @Test
    void replay_keepGoing_reportsEveryDivergingNode() {
        new InProcessCluster(trace, Map.of(N1, StaticCounterNode.class, N2, StaticCounterNode.class), 1).run(100);
        assertThat(Replayer.replay(Trace.open(trace), Replayer.Options.defaults()).divergences()).hasSize(1);
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withKeepGoing(true));
        assertThat(result.divergences()).extracting(Divergence::node).containsExactlyInAnyOrder(N1, N2);
    }

    @Test
    void replay_refusesAMissingNodeLogUnlessPartial() throws IOException {
        recordPingCluster();
        deleteRecursively(Trace.nodeDirectory(trace, N3));
        assertThatThrownBy(() -> Replayer.replay(Trace.open(trace), Replayer.Options.defaults()))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("node n3 has no log (it is a peer in the start of n1, n2)")
                .hasMessageContaining("recorded message(s) come from it")
                .hasMessageContaining("Receive[from=n3")
                .hasMessageContaining("--partial");
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withPartial(true));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(2);
    }

    @Test
    void replay_ofANodeKilledWhileItsFirstQueueFileWasMade_replaysItsRestart() throws IOException {
        // n1's first incarnation was killed while Chronicle was making its only data file: the header word holds
        // nothing but the "not complete" bit. The cluster then records n1's second incarnation.
        try (NodeLogWriter killed = NodeLogWriter.open(trace, N1, PingNode.class.getName(), "test", 1, 0)) {
            killed.abandon();
        }
        Path log1 = Trace.nodeDirectory(trace, N1).resolve("log-1");
        try (Stream<Path> files = Files.list(log1)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".cq4")).toList()) {
                Files.delete(file);
            }
        }
        try (RandomAccessFile file = new RandomAccessFile(log1.resolve("20261126L.cq4").toFile(), "rw")) {
            file.setLength(1 << 20);
            file.writeInt(Integer.reverseBytes(0x8000_0000)); // little-endian, as Chronicle writes it
        }
        recordPingCluster();

        Trace opened = Trace.open(trace);
        assertThat(opened.node(N1).manifest().incarnations()).hasSize(2);
        List<String> firstOfN1 = new ArrayList<>();
        ReplayResult result = Replayer.replay(opened, Replayer.Options.defaults().withListener((event, position, state) -> {
            if (event.entry().node().equals(N1) && firstOfN1.size() < 2) {
                firstOfN1.add(event.entry().incarnation() + " " + event.entry().seq() + " " + event.entry().event()
                        .getClass().getSimpleName() + " " + state.incarnation(N1));
            }
        }));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(3);
        assertThat(firstOfN1).containsExactly("2 0 Crash 2", "2 1 Start 2");
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
