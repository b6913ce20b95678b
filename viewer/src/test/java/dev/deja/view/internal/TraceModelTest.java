package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.trace.EventKind;
import dev.deja.trace.TraceEvent;
import dev.deja.view.Cone;
import dev.deja.view.EventFilter;
import dev.deja.view.Segment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TraceModelTest {
    private CraftedTrace crafted;
    private ColumnarTraceModel model;

    /**
     * n1 sends "a" to n2; n2 sends "b-lost" to n3, which never arrives, and "self" to itself; n3's timer fires;
     * a client's "query" reaches n1; n1 sends "dup" to n3, which receives it twice; n3 crashes and restarts.
     */
    @BeforeEach
    void craft() {
        crafted = new CraftedTrace("n1", "n2", "n3");
        crafted.start("n1").start("n2").start("n3");
        CraftedTrace.Sent a = crafted.send("n1", "n2", "a");
        crafted.receive(a);
        crafted.send("n2", "n3", "b-lost");
        CraftedTrace.Sent self = crafted.send("n2", "n2", "self");
        crafted.receive(self);
        crafted.timer("n3", 7, "tick");
        crafted.receiveFromOutside("client", "n1", 1, "query");
        CraftedTrace.Sent dup = crafted.send("n1", "n3", "dup");
        crafted.receive(dup).receive(dup);
        crafted.crashAndRestart("n3");
        model = crafted.model();
    }

    private int at(String node, int seq) {
        return model.positionOf(model.lane(new NodeId(node)), seq);
    }

    private List<int[]> arcs() {
        List<int[]> arcs = new ArrayList<>();
        for (int arc = 0; arc < model.arcCount(); arc++) {
            arcs.add(new int[] {model.arcSend(arc), model.arcReceive(arc)});
        }
        return arcs;
    }

    @Test
    void load_ofACraftedTrace_keepsEveryEntryInMergedOrder() {
        List<TraceEvent> merged = crafted.merged();
        assertThat(model.size()).isEqualTo(15);
        for (int position = 0; position < merged.size(); position++) {
            assertThat(model.entry(position)).as("entry at %d", position).isEqualTo(merged.get(position));
            assertThat(model.type(position)).isEqualTo(merged.get(position).event().kind());
            assertThat(model.positionOf(model.laneOf(position), model.ordinal(position))).isEqualTo(position);
        }
        assertThat(model.nodes()).extracting(NodeId::value).containsExactly("n1", "n2", "n3");
        assertThat(model.messageTypes()).containsExactly(CraftedTrace.Note.class.getName());
    }

    @Test
    void arcs_ofDeliveredLostSelfOutsideAndDuplicatedMessages_haveTheRightEnds() {
        assertThat(arcs()).containsExactlyInAnyOrder(
                new int[] {at("n1", 1), at("n2", 1)},   // a
                new int[] {at("n2", 2), -1},            // b-lost: an arc ending nowhere
                new int[] {at("n2", 3), at("n2", 4)},   // self: both ends on n2's lane
                new int[] {-1, at("n1", 2)},            // query from the unrecorded client
                new int[] {at("n1", 3), at("n3", 2)},   // dup, first delivery
                new int[] {at("n1", 3), at("n3", 3)});  // dup, second delivery
        for (int arc = 1; arc < model.arcCount(); arc++) {
            int previous = model.arcSend(arc - 1) >= 0 ? model.arcSend(arc - 1) : model.arcReceive(arc - 1);
            int current = model.arcSend(arc) >= 0 ? model.arcSend(arc) : model.arcReceive(arc);
            assertThat(current).as("arcs sorted by first end").isGreaterThanOrEqualTo(previous);
        }
    }

    @Test
    void counterpart_linksSendsAndReceives_andIsMissingForLostAndOutsideMessages() {
        assertThat(model.counterpart(at("n2", 1))).isEqualTo(at("n1", 1));
        assertThat(model.counterpart(at("n1", 1))).isEqualTo(at("n2", 1));
        assertThat(model.counterpart(at("n2", 2))).isEqualTo(-1);
        assertThat(model.counterpart(at("n1", 2))).isEqualTo(-1);
        assertThat(model.counterpart(at("n1", 3))).as("a send's first receive").isEqualTo(at("n3", 2));
        assertThat(model.counterpart(at("n3", 3))).isEqualTo(at("n1", 3));
        assertThat(model.peer(at("n1", 2))).contains(new NodeId("client"));
        assertThat(model.peerLane(at("n1", 2))).isEqualTo(-1);
        assertThat(model.peerLane(at("n2", 2))).isEqualTo(model.lane(new NodeId("n3")));
        assertThat(model.peer(at("n3", 1))).isEqualTo(Optional.empty());
    }

    @Test
    void segments_ofACrashedAndRestartedNode_splitItsLane() {
        assertThat(model.segments(model.lane(new NodeId("n3")))).containsExactly(
                new Segment(2, 1, at("n3", 0), at("n3", 3), true),
                new Segment(2, 2, at("n3", 4), at("n3", 5), false));
        assertThat(model.segments(model.lane(new NodeId("n1")))).containsExactly(
                new Segment(0, 1, at("n1", 0), at("n1", 3), false));
    }

    @Test
    void segments_ofANodeKilledAtTheEnd_endCrashed() {
        CraftedTrace trace = new CraftedTrace("n1").start("n1").clock("n1", 5).killedAtEnd("n1");
        assertThat(trace.model().segments(0)).containsExactly(new Segment(0, 1, 0, 1, true));
    }

    @Test
    void cone_ofAReceive_holdsTheSendersPrefixAndTheReceiversSuffix() {
        int receive = at("n3", 2);
        Cone cone = model.cone(receive);
        int n1 = model.lane(new NodeId("n1"));
        int n2 = model.lane(new NodeId("n2"));
        int n3 = model.lane(new NodeId("n3"));
        assertThat(cone.lastPastOrdinal(n1)).isEqualTo(3);
        assertThat(cone.lastPastOrdinal(n2)).as("n2's only message to n3 was lost").isEqualTo(-1);
        assertThat(cone.lastPastOrdinal(n3)).isEqualTo(1);
        assertThat(cone.firstFutureOrdinal(n3)).isEqualTo(3);
        assertThat(cone.firstFutureOrdinal(n1)).isEqualTo(Integer.MAX_VALUE);
        assertThat(cone.inPast(at("n1", 2))).isTrue();
        assertThat(cone.inPast(at("n2", 0))).isFalse();
        assertThat(cone.inFuture(at("n3", 5))).as("across the restart").isTrue();
        assertThat(cone.contains(receive)).isTrue();
        assertThat(cone.inPast(receive) || cone.inFuture(receive)).isFalse();
    }

    @Test
    void cone_ofASend_reachesTheReceiverAndEverythingAfterIt() {
        Cone cone = model.cone(at("n1", 1));
        assertThat(cone.firstFutureOrdinal(model.lane(new NodeId("n2")))).isEqualTo(1);
        assertThat(cone.firstFutureOrdinal(model.lane(new NodeId("n3")))).as("through n1's later send of dup").isEqualTo(2);
        assertThat(cone.lastPastOrdinal(model.lane(new NodeId("n1")))).isEqualTo(0);
        assertThat(cone.lastPastOrdinal(model.lane(new NodeId("n2")))).isEqualTo(-1);
        assertThat(cone.inFuture(at("n2", 0))).isFalse();
    }

    @Test
    void cone_matchesTransitiveClosureOfHappensBefore_atEveryEvent() {
        // Reference: happens-before by explicit closure over program order and send -> receive edges.
        int size = model.size();
        boolean[][] before = new boolean[size][size];
        for (int p = 0; p < size; p++) {
            int next = model.nextOnLane(p);
            if (next >= 0) {
                before[p][next] = true;
            }
            if (model.type(p) == EventKind.RECEIVE && model.counterpart(p) >= 0) {
                before[model.counterpart(p)][p] = true;
            }
        }
        for (int k = 0; k < size; k++) {
            for (int i = 0; i < size; i++) {
                for (int j = 0; j < size; j++) {
                    before[i][j] |= before[i][k] && before[k][j];
                }
            }
        }
        for (int origin = 0; origin < size; origin++) {
            Cone cone = model.cone(origin);
            for (int p = 0; p < size; p++) {
                assertThat(cone.inPast(p)).as("%d before %d", p, origin).isEqualTo(before[p][origin]);
                assertThat(cone.inFuture(p)).as("%d after %d", p, origin).isEqualTo(before[origin][p]);
            }
        }
    }

    @Test
    void matching_byNode_keepsOnlyThatNodesEntries() {
        BitSet shown = model.matching(EventFilter.builder().node(new NodeId("n2")).build());
        assertThat(shown.cardinality()).isEqualTo(5);
        shown.stream().forEach(p -> assertThat(model.laneOf(p)).isEqualTo(model.lane(new NodeId("n2"))));
    }

    @Test
    void matching_byMessageType_keepsSendsAndReceivesOfThatType() {
        BitSet bySimpleName = model.matching(EventFilter.builder().messageType("Note").build());
        assertThat(bySimpleName.cardinality()).isEqualTo(9);
        bySimpleName.stream().forEach(p -> assertThat(model.type(p)).isIn(EventKind.SEND, EventKind.RECEIVE));
        assertThat(model.matching(EventFilter.builder().messageType(CraftedTrace.Note.class.getName()).build()))
                .isEqualTo(bySimpleName);
        assertThat(model.matching(EventFilter.builder().messageType("Other").build()).isEmpty()).isTrue();
    }

    @Test
    void matching_byText_findsMessagesBothEndsAndIgnoresCase() {
        BitSet shown = model.matching(EventFilter.builder().text("DUP").build());
        assertThat(shown.stream().boxed().toList()).containsExactly(at("n1", 3), at("n3", 2), at("n3", 3));
        assertThat(model.matching(EventFilter.builder().text("tick").build()).stream().boxed().toList())
                .containsExactly(at("n3", 1));
    }

    @Test
    void matching_hidingTimers_dropsOnlyTimerFirings() {
        BitSet shown = model.matching(EventFilter.builder().timers(EventFilter.Timers.HIDE).build());
        assertThat(shown.cardinality()).isEqualTo(14);
        assertThat(shown.get(at("n3", 1))).isFalse();
        assertThat(model.matching(EventFilter.ALL).cardinality()).isEqualTo(15);
    }

    @Test
    void content_ofEachKind_isItsJson() {
        assertThat(model.content(at("n2", 1))).isEqualTo("{\"text\":\"a\"}");
        assertThat(model.content(at("n1", 1))).as("a send shows its receiver's copy").isEqualTo("{\"text\":\"a\"}");
        assertThat(model.content(at("n2", 2))).as("a lost message's content was never recorded").isEmpty();
        assertThat(model.content(at("n3", 1))).isEqualTo("\"tick\"");
        assertThat(model.content(at("n1", 0))).isEqualTo("{\"nodeClass\":\"test.Node\",\"args\":{\"mode\":\"test\"},\"peers\":[\"n2\",\"n3\"]}");
    }

    @Test
    void stepping_alongALane_visitsItsEntriesInOrder() {
        assertThat(model.nextOnLane(at("n2", 1))).isEqualTo(at("n2", 2));
        assertThat(model.previousOnLane(at("n2", 1))).isEqualTo(at("n2", 0));
        assertThat(model.previousOnLane(at("n2", 0))).isEqualTo(-1);
        assertThat(model.nextOnLane(at("n2", 4))).isEqualTo(-1);
    }

    @Test
    void add_ofAnEntryOutOfSeqOrder_isRefusedNamingTheNode() {
        TraceModelBuilder builder = new TraceModelBuilder("bad", List.of(new NodeId("n1")));
        TraceEvent second = crafted.merged().stream().filter(e -> e.node().value().equals("n1") && e.seq() == 1).findFirst().orElseThrow();
        assertThatThrownBy(() -> builder.add(second)).hasMessageContaining("node n1: expected seq 0 next");
    }

    @Test
    void nodes_ofNumberedNames_areInNaturalOrder() {
        CraftedTrace crafted = new CraftedTrace("n10", "c2", "n2", "n1", "c10");
        for (String node : List.of("n10", "c2", "n2", "n1", "c10")) {
            crafted.start(node);
        }
        assertThat(crafted.model().nodes().stream().map(NodeId::value).toList())
                .containsExactly("c2", "c10", "n1", "n2", "n10");
    }
}
