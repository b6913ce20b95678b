package dev.deja.examples.randtree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.randtree.RandTreeNode.JoinState;
import dev.deja.examples.randtree.TreeMessage.Join;
import dev.deja.examples.randtree.TreeMessage.JoinReply;
import dev.deja.examples.randtree.TreeMessage.JoinStatus;
import dev.deja.examples.randtree.TreeMessage.NewRoot;
import dev.deja.examples.randtree.TreeMessage.UpdateSiblings;
import dev.deja.node.NodeId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One node driven by hand through the handlers where CrystalBall's inconsistencies live: the correct handler
 * keeps the tree consistent, the buggy one makes exactly the inconsistency its predicate checks.
 */
class RandTreeHandlersTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final NodeId N3 = new NodeId("n3");
    private static final NodeId N5 = new NodeId("n5");
    private static final List<String> PEERS_OF_N3 = List.of("n1", "n2", "n4", "n5", "n6");

    /** n3 joined under n1 (siblings: n2) and took n5 as its child. */
    private static RandTreeNode joinedWithChild(FakeEnv env) {
        RandTreeNode node = new RandTreeNode();
        node.onStart(env);
        assertThat(node.state()).isEqualTo(JoinState.INIT);
        env.fire(node, "start-join");
        Join join = env.sent(Join.class).getLast();
        assertThat(env.sent.getLast().to()).as("joins through the bootstrap, the smallest node").isEqualTo(N1);
        node.onMessage(env, N1, new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2, N3), join.attempt()));
        node.onMessage(env, N1, new Join(N5, N1, 7, 1));
        assertThat(node.state()).isEqualTo(JoinState.JOINED);
        assertThat(node.parent()).isEqualTo(N1);
        assertThat(node.siblings()).containsExactly(N2);
        assertThat(node.children()).containsExactly(N5);
        assertThat(env.sent(JoinReply.class)).contains(new JoinReply(JoinStatus.ACCEPTED, N1, List.of(), 7));
        return node;
    }

    @Test
    void updateSiblings_listingAChild_dropsTheStaleChild() {
        FakeEnv env = new FakeEnv("n3", PEERS_OF_N3, Map.of());
        RandTreeNode node = joinedWithChild(env);
        node.onMessage(env, N1, new UpdateSiblings(N1, List.of(N2, N3, N5)));
        assertThat(node.siblings()).containsExactly(N2, N5);
        assertThat(node.children()).isEmpty();
    }

    @Test
    void updateSiblings_withSiblingNotRemovedBug_keepsTheChildAsASibling() {
        FakeEnv env = new FakeEnv("n3", PEERS_OF_N3, Map.of("bug", "sibling-not-removed"));
        RandTreeNode node = joinedWithChild(env);
        node.onMessage(env, N1, new UpdateSiblings(N1, List.of(N2, N3, N5)));
        assertThat(node.children()).containsExactly(N5);
        assertThat(node.siblings()).containsExactly(N2, N5);
    }

    @Test
    void newRoot_thatIsAChild_dropsTheStaleChild_andPassesTheRootOn() {
        FakeEnv env = new FakeEnv("n3", PEERS_OF_N3, Map.of());
        RandTreeNode node = joinedWithChild(env);
        node.onMessage(env, N1, new NewRoot(N5));
        assertThat(node.root()).isEqualTo(N5);
        assertThat(node.children()).isEmpty();
    }

    @Test
    void newRoot_withStaleChildBug_keepsTheRootAsAChild() {
        FakeEnv env = new FakeEnv("n3", PEERS_OF_N3, Map.of("bug", "stale-child-on-new-root"));
        RandTreeNode node = joinedWithChild(env);
        node.onMessage(env, N1, new NewRoot(N5));
        assertThat(node.root()).isEqualTo(N5);
        assertThat(node.children()).containsExactly(N5);
        assertThat(env.sent.getLast()).isEqualTo(new FakeEnv.Sent(N5, new NewRoot(N5)));
    }

    @Test
    void rootFailure_smallestChildPromotesItself_andClearsItsSiblings() {
        FakeEnv env = new FakeEnv("n2", List.of("n1", "n3", "n4"), Map.of());
        RandTreeNode node = promotedAfterTheRootWentSilent(env);
        assertThat(node.siblings()).isEmpty();
        assertThat(env.sent(NewRoot.class)).isEmpty(); // no children to tell
    }

    @Test
    void rootFailure_withRootKeepsSiblingsBug_leavesARootWithSiblings() {
        FakeEnv env = new FakeEnv("n2", List.of("n1", "n3", "n4"), Map.of("bug", "root-keeps-siblings"));
        RandTreeNode node = promotedAfterTheRootWentSilent(env);
        assertThat(node.siblings()).containsExactly(N3);
    }

    private static RandTreeNode promotedAfterTheRootWentSilent(FakeEnv env) {
        RandTreeNode node = new RandTreeNode();
        node.onStart(env);
        env.fire(node, "start-join");
        Join join = env.sent(Join.class).getLast();
        node.onMessage(env, N1, new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2, N3), join.attempt()));
        assertThat(node.siblings()).containsExactly(N3);
        for (int tick = 1; tick <= 5; tick++) { // n1 sends nothing more
            env.nowMillis += RandTreeNode.RECOVERY_INTERVAL_MILLIS;
            env.fire(node, "recovery");
        }
        assertThat(node.isRoot()).as("the smallest of the root's children takes over").isTrue();
        assertThat(node.parent()).isNull();
        assertThat(node.recoveryTimerScheduled()).isTrue();
        return node;
    }

    @Test
    void bootstrap_joinsItself_withItsRecoveryTimerScheduled() {
        FakeEnv env = new FakeEnv("n1", List.of("n2", "n3"), Map.of());
        RandTreeNode node = new RandTreeNode();
        node.onStart(env);
        assertThat(node.isRoot()).isTrue();
        assertThat(node.recoveryTimerScheduled()).isTrue();
        env.fire(node, "recovery");
        assertThat(node.recoveryTimerScheduled()).as("the timer recurs").isTrue();
    }

    @Test
    void bootstrap_withNoRecoveryTimerBug_joinsItselfWithoutTheTimer() {
        FakeEnv env = new FakeEnv("n1", List.of("n2", "n3"), Map.of("bug", "no-recovery-timer"));
        RandTreeNode node = new RandTreeNode();
        node.onStart(env);
        assertThat(node.isRoot()).isTrue();
        assertThat(node.recoveryTimerScheduled()).isFalse();
        assertThat(env.timers).isEmpty();
    }

    @Test
    void root_givesTheRootToAMoreEligibleJoiner_andJoinsIt() {
        FakeEnv env = new FakeEnv("n2", List.of("n1", "n3"), Map.of("bootstrap", "n2"));
        RandTreeNode node = new RandTreeNode();
        node.onStart(env);
        assertThat(node.isRoot()).isTrue();
        node.onMessage(env, N1, new Join(N1, null, 42, 0));
        assertThat(env.sent(JoinReply.class)).containsExactly(new JoinReply(JoinStatus.ROOT_FORCE, N1, List.of(), 42));
        assertThat(node.state()).isEqualTo(JoinState.JOINING);
        assertThat(env.sent.getLast().to()).isEqualTo(N1);
        Join join = env.sent(Join.class).getLast();
        node.onMessage(env, N1, new JoinReply(JoinStatus.ACCEPTED, N1, List.of(N2), join.attempt()));
        assertThat(node.state()).isEqualTo(JoinState.JOINED);
        assertThat(node.parent()).isEqualTo(N1);
        assertThat(node.root()).isEqualTo(N1);
        assertThat(node.siblings()).isEmpty();
    }
}
