package dev.deja.replay.internal;

import static dev.deja.replay.internal.HappensBeforeMergeTest.N1;
import static dev.deja.replay.internal.HappensBeforeMergeTest.N2;
import static dev.deja.replay.internal.HappensBeforeMergeTest.entry;
import static dev.deja.replay.internal.HappensBeforeMergeTest.receive;
import static dev.deja.replay.internal.HappensBeforeMergeTest.send;
import static dev.deja.replay.internal.HappensBeforeMergeTest.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The merge following a simulator's order ({@code order.txt}) and its checks against the logs and happens-before. */
class OrderedMergeTest {
    /** n1 starts and sends to n2; n2 starts, receives it and reads its clock; n1 draws a random number last. */
    private static final List<TraceEvent> N1_LOG = List.of(entry(N1, 0, 1, start(N2)), entry(N1, 1, 2, send(N2, 7)),
            entry(N1, 2, 5, new Event.RandomDraw(3)));
    private static final List<TraceEvent> N2_LOG = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 3, receive(N1, 2, 7)),
            entry(N2, 2, 4, new Event.ClockRead(9)));

    @TempDir
    Path trace;

    private List<TraceEvent> merge(String runs, List<NodeStream> streams) throws IOException {
        Files.writeString(trace.resolve(TraceOrder.FILE), "deja-trace-order 1\n" + runs);
        TraceOrder order = TraceOrder.find(trace).orElseThrow();
        List<TraceEvent> merged = new ArrayList<>();
        try (HappensBeforeMerge merge = new HappensBeforeMerge("test-trace", streams,
                order.cursor(List.of(N1, N2)))) {
            merge.forEachRemaining(merged::add);
        }
        return merged;
    }

    private static List<NodeStream> both() {
        return List.of(NodeStream.of(N1, N1_LOG, true), NodeStream.of(N2, N2_LOG, true));
    }

    @Test
    void merge_followsTheOrder_notTheLamportClock() throws IOException {
        // By Lamport clock n1's random draw (5) would come after n2's clock read (4); the run had it the other way.
        assertThat(merge("n1 2\nn2 2\nn1 1\nn2 1\n", both())).containsExactly(N1_LOG.get(0), N1_LOG.get(1),
                N2_LOG.get(0), N2_LOG.get(1), N1_LOG.get(2), N2_LOG.get(2));
    }

    @Test
    void merge_rejectsAnOrderPuttingAReceiveBeforeItsSend() {
        assertThatThrownBy(() -> merge("n1 1\nn2 2\nn1 2\nn2 1\n", both()))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining(TraceOrder.FILE + ", line 3")
                .hasMessageContaining("puts the receive of message")
                .hasMessageContaining("by n2 before its send")
                .hasMessageContaining("receive " + N2_LOG.get(1))
                .hasMessageContaining("send " + N1_LOG.get(1));
    }

    @Test
    void merge_rejectsAnOrderGivingANodeMoreEntriesThanItsLog() {
        assertThatThrownBy(() -> merge("n1 2\nn2 3\nn1 2\n", both()))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining(TraceOrder.FILE + ", line 4: the order gives node n1 1 more entries, but its log"
                        + " ends after the entry at clock 5");
    }

    @Test
    void merge_rejectsAnOrderEndingBeforeTheLogs() {
        assertThatThrownBy(() -> merge("n1 2\nn2 3\n", both()))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("the order ends, but the log of node n1 holds more entries, from "
                        + N1_LOG.get(2));
    }

    @Test
    void merge_rejectsANodeWithoutLog() {
        assertThatThrownBy(() -> merge("n1 2\nn9 1\n", both()))
                .hasMessageContaining(TraceOrder.FILE + ", line 3: node n9 has no log in the trace (recorded nodes: n1, n2)");
    }

    @Test
    void merge_rejectsAMalformedRun() {
        assertThatThrownBy(() -> merge("n1 two\n", both()))
                .hasMessageContaining(TraceOrder.FILE + ", line 2: expected a positive number of entries of node n1,"
                        + " found 'two'");
    }

    @Test
    void merge_ofSomeNodesOnly_skipsTheRunsOfTheOthers() throws IOException {
        assertThat(merge("n1 2\nn2 2\nn1 1\nn2 1\n", List.of(NodeStream.of(N2, N2_LOG, true))))
                .containsExactlyElementsOf(N2_LOG);
    }

    @Test
    void find_refusesAnotherFormatVersion() throws IOException {
        Files.writeString(trace.resolve(TraceOrder.FILE), "deja-trace-order 2\nn1 1\n");
        assertThatThrownBy(() -> TraceOrder.find(trace))
                .hasMessageContaining(TraceOrder.FILE + ": the order was written with format 2; this build reads format 1");
    }

    @Test
    void find_withoutAnOrder_isEmpty() {
        assertThat(TraceOrder.find(trace)).isEmpty();
    }

    @Test
    void writer_joinsConsecutiveEntriesOfANodeIntoRuns_andAbandonLeavesNoFile() throws IOException {
        try (TraceOrder.Writer writer = TraceOrder.Writer.create(trace)) {
            writer.entry(N1);
            writer.entry(N1);
            writer.entry(N2);
            writer.entries(N2, 2);
            writer.entries(N1, 0);
            writer.entry(N1);
        }
        assertThat(Files.readString(trace.resolve(TraceOrder.FILE))).isEqualTo("deja-trace-order 1\nn1 2\nn2 3\nn1 1\n");
        Path other = trace.resolve("other");
        TraceOrder.Writer abandoned = TraceOrder.Writer.create(other);
        abandoned.entry(new NodeId("n3"));
        abandoned.abandon();
        assertThat(other).isEmptyDirectory();
    }
}
