package dev.deja.replay.internal;

import static dev.deja.replay.internal.HappensBeforeMergeTest.N1;
import static dev.deja.replay.internal.HappensBeforeMergeTest.N2;
import static dev.deja.replay.internal.HappensBeforeMergeTest.receive;
import static dev.deja.replay.internal.HappensBeforeMergeTest.send;
import static dev.deja.replay.internal.HappensBeforeMergeTest.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.NodeLog;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The merge over real Chronicle logs written with {@link NodeLogWriter}. */
class HappensBeforeMergeIT {
    @TempDir
    Path trace;

    /** Writes one incarnation of {@code node} with the given (lamport, event) pairs; returns what was written. */
    private List<TraceEvent> write(NodeId node, Object... lamportAndEvent) {
        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter writer = NodeLogWriter.open(trace, node, "test.Node", "1", 1, 0)) {
            for (int i = 0; i < lamportAndEvent.length; i += 2) {
                TraceEvent entry = new TraceEvent(node, writer.incarnation(), writer.nextSeq(),
                        (Long) lamportAndEvent[i], 5, (Event) lamportAndEvent[i + 1]);
                writer.append(entry);
                written.add(entry);
            }
        }
        return written;
    }

    private List<TraceEvent> mergeTrace() {
        List<NodeStream> streams = new ArrayList<>();
        for (NodeLog log : Trace.open(trace).nodes()) {
            streams.add(NodeStream.of(log));
        }
        return HappensBeforeMergeTest.mergeAll(streams);
    }

    @Test
    void merge_ordersRealLogsByLamportThenNode() {
        List<TraceEvent> n1 = write(N1, 1L, start(N2), 2L, send(N2, 7), 6L, new Event.ClockRead(3));
        List<TraceEvent> n2 = write(N2, 1L, start(N1), 3L, receive(N1, 2, 7), 6L, new Event.RandomDraw(4));
        assertThat(mergeTrace()).containsExactly(n1.get(0), n2.get(0), n1.get(1), n2.get(1), n1.get(2), n2.get(2));
    }

    @Test
    void merge_rejectsDecreasingLamport() {
        write(N1, 1L, start(), 5L, new Event.ClockRead(3), 4L, new Event.ClockRead(4));
        assertThatThrownBy(this::mergeTrace)
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining(Trace.nodeDirectory(trace, N1).toString())
                .hasMessageContaining("node n1: Lamport clock not strictly increasing")
                .hasMessageContaining("n1#1 (inc 1, lamport 5)")
                .hasMessageContaining("n1#2 (inc 1, lamport 4)");
    }

    @Test
    void merge_rejectsReceiveBeforeItsSend() {
        write(N1, 1L, start(N2), 8L, send(N2, 7));
        write(N2, 1L, start(N1), 4L, receive(N1, 3, 7));
        assertThatThrownBy(this::mergeTrace)
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("n2#1 (inc 1, lamport 4)")
                .hasMessageContaining("n1#1 (inc 1, lamport 8)")
                .hasMessageContaining("not smaller than the receive's 4");
    }
}
