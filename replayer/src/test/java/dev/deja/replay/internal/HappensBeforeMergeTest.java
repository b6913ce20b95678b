package dev.deja.replay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.trace.Event;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The merge order and each validation, on logs held in memory. */
class HappensBeforeMergeTest {
    static final NodeId N1 = new NodeId("n1");
    static final NodeId N2 = new NodeId("n2");
    static final NodeId CLIENT = new NodeId("client");
    static final Payload PAYLOAD = new Payload("java.lang.String", new byte[] {0x61, 0x61});

    static TraceEvent entry(NodeId node, long seq, long lamport, Event event) {
        return new TraceEvent(node, 1, seq, lamport, 1000 + seq, event);
    }

    static Event start(NodeId... peers) {
        return new Event.Start("test.Node", Map.of(), List.of(peers));
    }

    static Event send(NodeId to, long messageId) {
        return new Event.Send(to, messageId, "java.lang.String", 42);
    }

    static Event receive(NodeId from, long fromLamport, long messageId) {
        return new Event.Receive(from, fromLamport, messageId, PAYLOAD);
    }

    static List<TraceEvent> mergeAll(List<NodeStream> streams) {
        List<TraceEvent> merged = new ArrayList<>();
        try (HappensBeforeMerge merge = new HappensBeforeMerge("test-trace", streams)) {
            merge.forEachRemaining(merged::add);
        }
        return merged;
    }

    @Test
    void merge_ordersByLamportThenNodeThenSeq() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start(N2)), entry(N1, 1, 2, send(N2, 7)),
                entry(N1, 2, 5, new Event.RandomDraw(3)));
        List<TraceEvent> n2 = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 3, receive(N1, 2, 7)),
                entry(N2, 2, 5, new Event.ClockRead(9)));
        List<TraceEvent> merged = mergeAll(List.of(NodeStream.of(N2, n2, true), NodeStream.of(N1, n1, true)));
        assertThat(merged).containsExactly(n1.get(0), n2.get(0), n1.get(1), n2.get(1), n1.get(2), n2.get(2));
    }

    @Test
    void merge_acceptsMessagesFromUnrecordedClients() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start()), entry(N1, 1, 9, receive(CLIENT, 8, 1)));
        assertThat(mergeAll(List.of(NodeStream.of(N1, n1, true)))).hasSize(2);
    }

    @Test
    void merge_rejectsSeqGap() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start()), entry(N1, 2, 2, new Event.ClockRead(1)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("node n1: seq not contiguous")
                .hasMessageContaining(n1.get(0).toString())
                .hasMessageContaining(n1.get(1).toString());
    }

    @Test
    void merge_rejectsLogNotStartingAtSeqZero() {
        List<TraceEvent> n1 = List.of(entry(N1, 3, 1, start()));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("instead of seq 0");
    }

    @Test
    void merge_rejectsRepeatedLamport() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 4, start()), entry(N1, 1, 4, new Event.ClockRead(1)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("Lamport clock not strictly increasing")
                .hasMessageContaining(n1.get(1).toString());
    }

    @Test
    void merge_rejectsReceiveWhoseCarriedClockIsNotSmaller() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start()), entry(N1, 1, 5, receive(CLIENT, 5, 1)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("received at clock 5 but carries the sender's clock 5");
    }

    @Test
    void merge_rejectsReceiveWhoseSendHasALargerClock() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start(N2)), entry(N1, 1, 9, send(N2, 7)));
        List<TraceEvent> n2 = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 4, receive(N1, 3, 7)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true), NodeStream.of(N2, n2, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("has no earlier send in the log of n1")
                .hasMessageContaining(n2.get(1).toString())
                .hasMessageContaining(n1.get(1).toString())
                .hasMessageContaining("not smaller than the receive's 4");
    }

    @Test
    void merge_rejectsReceiveWhoseSendHasAnotherClock() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start(N2)), entry(N1, 1, 2, send(N2, 7)));
        List<TraceEvent> n2 = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 4, receive(N1, 3, 7)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true), NodeStream.of(N2, n2, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("carries sender clock 3 but the recorded send has clock 2")
                .hasMessageContaining(n1.get(1).toString())
                .hasMessageContaining(n2.get(1).toString());
    }

    @Test
    void merge_rejectsReceiveWithoutAnySend() {
        List<TraceEvent> n1 = List.of(entry(N1, 0, 1, start(N2)));
        List<TraceEvent> n2 = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 4, receive(N1, 3, 7)));
        assertThatThrownBy(() -> mergeAll(List.of(NodeStream.of(N1, n1, true), NodeStream.of(N2, n2, true))))
                .isInstanceOf(ReplayException.class)
                .hasMessageContaining("the log of n1 has no send with that message id");
    }

    @Test
    void merge_skipsTheSenderCheckForEvictedSends() {
        List<TraceEvent> n1 = new ArrayList<>(List.of(entry(N1, 0, 1, start(N2))));
        for (int i = 1; i <= 10; i++) {
            n1.add(entry(N1, i, 1 + i, send(N2, i)));
        }
        // Message 1 was sent at clock 2, but the receive claims 2 as well; only the oldest send was evicted.
        List<TraceEvent> n2 = List.of(entry(N2, 0, 1, start(N1)), entry(N2, 1, 20, receive(N1, 2, 1)));
        List<TraceEvent> merged = new ArrayList<>();
        try (HappensBeforeMerge merge = new HappensBeforeMerge("t", List.of(NodeStream.of(N1, n1, true),
                NodeStream.of(N2, n2, true)), 4)) {
            merge.forEachRemaining(merged::add);
        }
        assertThat(merged).hasSize(13);
    }
}
