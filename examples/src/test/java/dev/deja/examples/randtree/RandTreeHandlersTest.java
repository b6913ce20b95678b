package dev.deja.examples.randtree;

import static dev.deja.examples.testing.OneNodeRuns.deliver;
import static dev.deja.examples.testing.OneNodeRuns.timer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.randtree.RandTreeNode.JoinState;
import dev.deja.examples.randtree.TreeMessage.Join;
import dev.deja.examples.randtree.TreeMessage.JoinReply;
import dev.deja.examples.randtree.TreeMessage.JoinStatus;
import dev.deja.examples.randtree.TreeMessage.NewRoot;
import dev.deja.examples.randtree.TreeMessage.Status;
import dev.deja.examples.randtree.TreeMessage.StatusQuery;
import dev.deja.examples.randtree.TreeMessage.UpdateSiblings;
import dev.deja.examples.testing.OneNodeRuns;
import dev.deja.examples.testing.OneNodeRuns.Now;
import dev.deja.examples.testing.OneNodeRuns.Peer;
import dev.deja.examples.testing.OneNodeRuns.Send;
import dev.deja.node.NodeId;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * One node on the simulator, its peers scripted, through the handlers where CrystalBall's inconsistencies live:
 * the correct handler keeps the tree consistent, the buggy one makes exactly the inconsistency its predicate
 * checks. The node's first draw (its start-join delay) is scripted to {@value #START_JOIN_MILLIS} ms; later draws
 * come from seed 1.
 */
class RandTreeHandlersTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final NodeId N3 = new NodeId("n3");
    private static final NodeId N5 = new NodeId("n5");
    private static final long START_JOIN_MILLIS = 7;

    private static RandTreeNode node(Now now) {
        return (RandTreeNode) now.node();
    }

    /**
     * n3 (peers n1, n2, n4, n5, n6) joins under n1 (siblings: n2) and takes n5 as its child; n1 then also sends
     * {@code next}, which the caller's script delivers.
     */
    private static OneNodeRuns.Scenario joinedWithChild(Map<String, String> args, Object next) {
        Peer n1 = Peer.answering((from, message) -> message instanceof Join join && from.equals(N3)
                ? List.of(Send.to("n3", new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2, N3), join.attempt())),
                        Send.to("n3", new Join(N5, N1, 7, 1)), Send.to("n3", next))
                : List.of());
        return OneNodeRuns.node("n3", RandTreeNode.class, args)
                .peer("n1", n1).silentPeers("n2", "n4", "n5", "n6")
                .draws(OneNodeRuns.longBelow(RandTreeNode.JOIN_SPREAD_MILLIS + 1, START_JOIN_MILLIS))
                .seededDrawsAfterScript(1)
                .then(timer(START_JOIN_MILLIS), now -> {
                    assertThat(node(now).state()).isEqualTo(JoinState.JOINING);
                    assertThat(now.takeSent()).as("joins through the bootstrap, the smallest node")
                            .singleElement().satisfies(sent -> {
                                assertThat(sent.to()).isEqualTo(N1);
                                assertThat(sent.message()).isInstanceOf(Join.class);
                            });
                })
                .then(deliver("n1", JoinReply.class))
                .then(deliver("n1", Join.class), now -> {
                    RandTreeNode node = node(now);
                    assertThat(node.state()).isEqualTo(JoinState.JOINED);
                    assertThat(node.parent()).isEqualTo(N1);
                    assertThat(node.siblings()).containsExactly(N2);
                    assertThat(node.children()).containsExactly(N5);
                    assertThat(now.takeSent()).contains(Send.to("n5", new JoinReply(JoinStatus.ACCEPTED, N1, List.of(), 7)));
                });
    }

    @Test
    void updateSiblings_listingAChild_dropsTheStaleChild() {
        joinedWithChild(Map.of(), new UpdateSiblings(N1, List.of(N2, N3, N5)))
                .then(deliver("n1", UpdateSiblings.class), now -> {
                    assertThat(node(now).siblings()).containsExactly(N2, N5);
                    assertThat(node(now).children()).isEmpty();
                })
                .run();
    }

    @Test
    void updateSiblings_withSiblingNotRemovedBug_keepsTheChildAsASibling() {
        joinedWithChild(Map.of("bug", "sibling-not-removed"), new UpdateSiblings(N1, List.of(N2, N3, N5)))
                .then(deliver("n1", UpdateSiblings.class), now -> {
                    assertThat(node(now).children()).containsExactly(N5);
                    assertThat(node(now).siblings()).containsExactly(N2, N5);
                })
                .run();
    }

    @Test
    void newRoot_thatIsAChild_dropsTheStaleChild_andPassesTheRootOn() {
        joinedWithChild(Map.of(), new NewRoot(N5))
                .then(deliver("n1", NewRoot.class), now -> {
                    assertThat(node(now).root()).isEqualTo(N5);
                    assertThat(node(now).children()).isEmpty();
                })
                .run();
    }

    @Test
    void newRoot_withStaleChildBug_keepsTheRootAsAChild() {
        joinedWithChild(Map.of("bug", "stale-child-on-new-root"), new NewRoot(N5))
                .then(deliver("n1", NewRoot.class), now -> {
                    assertThat(node(now).root()).isEqualTo(N5);
                    assertThat(node(now).children()).containsExactly(N5);
                    assertThat(now.takeSent()).last().isEqualTo(Send.to("n5", new NewRoot(N5)));
                })
                .run();
    }

    @Test
    void rootFailure_smallestChildPromotesItself_andClearsItsSiblings() {
        promotedAfterTheRootWentSilent(Map.of(), now -> {
            assertThat(node(now).siblings()).isEmpty();
            assertThat(now.takeSent()).as("no children to tell").extracting(Send::message)
                    .noneMatch(NewRoot.class::isInstance);
        });
    }

    @Test
    void rootFailure_withRootKeepsSiblingsBug_leavesARootWithSiblings() {
        promotedAfterTheRootWentSilent(Map.of("bug", "root-keeps-siblings"),
                now -> assertThat(node(now).siblings()).containsExactly(N3));
    }

    /** n2 (peers n1, n3, n4) joins under n1, which then says nothing more; five recovery ticks later n2 is root. */
    private static void promotedAfterTheRootWentSilent(Map<String, String> args, Consumer<Now> check) {
        Peer n1 = Peer.answering((from, message) -> message instanceof Join join
                ? List.of(Send.to("n2", new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2, N3), join.attempt())))
                : List.of());
        OneNodeRuns.Scenario scenario = OneNodeRuns.node("n2", RandTreeNode.class, args)
                .peer("n1", n1).silentPeers("n3", "n4")
                .draws(OneNodeRuns.longBelow(RandTreeNode.JOIN_SPREAD_MILLIS + 1, START_JOIN_MILLIS))
                .seededDrawsAfterScript(1)
                .then(timer(START_JOIN_MILLIS))
                .then(deliver("n1", JoinReply.class), now -> assertThat(node(now).siblings()).containsExactly(N3));
        for (int tick = 1; tick < 5; tick++) {
            scenario.then(timer(RandTreeNode.RECOVERY_INTERVAL_MILLIS),
                    now -> assertThat(node(now).isRoot()).as("still waiting for the silent root").isFalse());
        }
        scenario.then(timer(RandTreeNode.RECOVERY_INTERVAL_MILLIS), now -> {
            RandTreeNode node = node(now);
            assertThat(node.isRoot()).as("the smallest of the root's children takes over").isTrue();
            assertThat(node.parent()).isNull();
            assertThat(node.recoveryTimerScheduled()).isTrue();
            check.accept(now);
        }).run();
    }

    @Test
    void bootstrap_joinsItself_withItsRecoveryTimerScheduled() {
        OneNodeRuns.node("n1", RandTreeNode.class, Map.of()).silentPeers("n2", "n3")
                .then(timer(RandTreeNode.RECOVERY_INTERVAL_MILLIS), now -> {
                    assertThat(node(now).isRoot()).isTrue();
                    assertThat(node(now).recoveryTimerScheduled()).as("the timer recurs").isTrue();
                    assertThat(now.pendingTimers()).hasSize(1);
                })
                .run();
    }

    @Test
    void bootstrap_withNoRecoveryTimerBug_joinsItselfWithoutTheTimer() {
        OneNodeRuns.node("n1", RandTreeNode.class, Map.of("bug", "no-recovery-timer"))
                .peer("n2", Peer.sending(Send.to("n1", new StatusQuery()))).silentPeers("n3")
                .then(deliver("n2", StatusQuery.class), now -> {
                    assertThat(node(now).isRoot()).isTrue();
                    assertThat(node(now).recoveryTimerScheduled()).isFalse();
                    assertThat(now.pendingTimers()).isEmpty();
                    assertThat(now.takeSent()).singleElement().extracting(Send::message)
                            .isInstanceOfSatisfying(Status.class, status -> assertThat(status.root()).isEqualTo(N1));
                })
                .run();
    }

    @Test
    void root_givesTheRootToAMoreEligibleJoiner_andJoinsIt() {
        Peer n1 = new Peer() {
            @Override
            public List<Send> onStart() {
                return List.of(Send.to("n2", new Join(N1, null, 42, 0)));
            }

            @Override
            public List<Send> onMessage(NodeId from, Object message) {
                return message instanceof Join join
                        ? List.of(Send.to("n2", new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2), join.attempt())))
                        : List.of();
            }
        };
        OneNodeRuns.node("n2", RandTreeNode.class, Map.of("bootstrap", "n2"))
                .peer("n1", n1).silentPeers("n3")
                .then(deliver("n1", Join.class), now -> {
                    assertThat(node(now).state()).isEqualTo(JoinState.JOINING);
                    List<Send> sent = now.takeSent();
                    assertThat(sent).extracting(Send::message).filteredOn(JoinReply.class::isInstance)
                            .containsExactly(new JoinReply(JoinStatus.ROOT_FORCE, N1, List.of(), 42));
                    assertThat(sent.getLast().to()).isEqualTo(N1);
                    assertThat(sent.getLast().message()).isInstanceOf(Join.class);
                })
                .then(deliver("n1", JoinReply.class), now -> {
                    RandTreeNode node = node(now);
                    assertThat(node.state()).isEqualTo(JoinState.JOINED);
                    assertThat(node.parent()).isEqualTo(N1);
                    assertThat(node.root()).isEqualTo(N1);
                    assertThat(node.siblings()).isEmpty();
                })
                .run();
    }
}
