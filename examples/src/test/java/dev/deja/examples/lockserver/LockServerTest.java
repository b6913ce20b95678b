package dev.deja.examples.lockserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.lockserver.FakeEnv.Sent;
import dev.deja.node.NodeId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The server driven by hand: grants, revokes, the pending queue, and releases denied while a lock is pending. */
class LockServerTest {
    private static final NodeId C1 = new NodeId("c1");
    private static final NodeId C2 = new NodeId("c2");
    private static final NodeId C3 = new NodeId("c3");
    private static final NodeId C4 = new NodeId("c4");

    private final LockServer server = new LockServer();
    private final FakeEnv env = new FakeEnv("server", List.of("c1", "c2", "c3", "c4"), Map.of());

    @Test
    void conflictingRequest_revokesFromEveryHolder_andQueuesTheLockUntilAllGaveItBack() {
        server.onStart(env);
        server.onMessage(env, C1, new Acquire(0, LockMode.SHARED));
        server.onMessage(env, C2, new Acquire(0, LockMode.SHARED));
        assertThat(env.takeSent()).containsExactly(new Sent(C1, new Grant(0, LockMode.SHARED)),
                new Sent(C2, new Grant(0, LockMode.SHARED)));

        server.onMessage(env, C3, new Acquire(0, LockMode.EXCLUSIVE));
        assertThat(env.takeSent()).containsExactly(new Sent(C1, new Revoke(0)), new Sent(C2, new Revoke(0)));
        assertThat(server.pendingLocks()).containsExactly(0);

        server.onMessage(env, C1, new Release(0));
        assertThat(env.takeSent()).as("a release is denied while its lock is pending")
                .containsExactly(new Sent(C1, new ReleaseDenied(0)));
        server.onMessage(env, C4, new Acquire(0, LockMode.SHARED));
        assertThat(env.takeSent()).as("first come, first served: c4 waits behind c3").isEmpty();

        server.onMessage(env, C1, new RevokeDone(0));
        assertThat(env.takeSent()).isEmpty();
        assertThat(server.pendingSize()).isEqualTo(1);
        server.onMessage(env, C2, new RevokeDone(0));
        assertThat(env.takeSent()).as("c3 gets it, then c4's shared request revokes it again")
                .containsExactly(new Sent(C3, new Grant(0, LockMode.EXCLUSIVE)), new Sent(C3, new Revoke(0)));
        assertThat(server.pendingLocks()).containsExactly(0);
        assertThat(server.locks.get(0).waiting()).containsExactly("c4:SHARED");
    }

    @Test
    void release_ofALockNotPending_isGranted() {
        server.onStart(env);
        server.onMessage(env, C1, new Acquire(1, LockMode.SHARED));
        env.takeSent();
        server.onMessage(env, C1, new Release(1));
        assertThat(env.takeSent()).containsExactly(new Sent(C1, new ReleaseGranted(1)));
        assertThat(server.locks.get(1).holders).isEmpty();
        server.onMessage(env, C2, new Acquire(1, LockMode.EXCLUSIVE));
        assertThat(env.takeSent()).containsExactly(new Sent(C2, new Grant(1, LockMode.EXCLUSIVE)));
        assertThat(server.pendingSize()).isZero();
    }

    @Test
    void messagesAboutUnknownLocks_areIgnored() {
        server.onStart(env);
        server.onMessage(env, C1, new Acquire(LockClient.LOCKS, LockMode.SHARED));
        server.onMessage(env, C1, new RevokeDone(0));
        assertThat(env.takeSent()).isEmpty();
        assertThat(server.pendingSize()).isZero();
    }
}
