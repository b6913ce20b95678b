package dev.deja.examples.lockserver;

import static dev.deja.examples.testing.OneNodeRuns.deliver;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.testing.OneNodeRuns;
import dev.deja.examples.testing.OneNodeRuns.Peer;
import dev.deja.examples.testing.OneNodeRuns.Send;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server on the simulator, its clients scripted: grants, revokes, the pending queue, and releases denied while
 * a lock is pending. Each client sends its messages at start; the script decides the order they arrive in.
 */
class LockServerTest {
    private static LockServer server(OneNodeRuns.Now now) {
        return (LockServer) now.node();
    }

    @Test
    void conflictingRequest_revokesFromEveryHolder_andQueuesTheLockUntilAllGaveItBack() {
        OneNodeRuns.node("server", LockServer.class, Map.of())
                .peer("c1", Peer.sending(Send.to("server", new Acquire(0, LockMode.SHARED)),
                        Send.to("server", new Release(0)), Send.to("server", new RevokeDone(0))))
                .peer("c2", Peer.sending(Send.to("server", new Acquire(0, LockMode.SHARED)),
                        Send.to("server", new RevokeDone(0))))
                .peer("c3", Peer.sending(Send.to("server", new Acquire(0, LockMode.EXCLUSIVE))))
                .peer("c4", Peer.sending(Send.to("server", new Acquire(0, LockMode.SHARED))))
                .then(deliver("c1", Acquire.class))
                .then(deliver("c2", Acquire.class), now -> assertThat(now.takeSent()).containsExactly(
                        Send.to("c1", new Grant(0, LockMode.SHARED)), Send.to("c2", new Grant(0, LockMode.SHARED))))
                .then(deliver("c3", Acquire.class), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("c1", new Revoke(0)), Send.to("c2", new Revoke(0)));
                    assertThat(server(now).pendingLocks()).containsExactly(0);
                })
                .then(deliver("c1", Release.class), now -> assertThat(now.takeSent())
                        .as("a release is denied while its lock is pending")
                        .containsExactly(Send.to("c1", new ReleaseDenied(0))))
                .then(deliver("c4", Acquire.class), now -> assertThat(now.takeSent())
                        .as("first come, first served: c4 waits behind c3").isEmpty())
                .then(deliver("c1", RevokeDone.class), now -> {
                    assertThat(now.takeSent()).isEmpty();
                    assertThat(server(now).pendingSize()).isEqualTo(1);
                })
                .then(deliver("c2", RevokeDone.class), now -> {
                    assertThat(now.takeSent()).as("c3 gets it, then c4's shared request revokes it again")
                            .containsExactly(Send.to("c3", new Grant(0, LockMode.EXCLUSIVE)), Send.to("c3", new Revoke(0)));
                    assertThat(server(now).pendingLocks()).containsExactly(0);
                    assertThat(server(now).locks.get(0).waiting()).containsExactly("c4:SHARED");
                })
                .run();
    }

    @Test
    void release_ofALockNotPending_isGranted() {
        OneNodeRuns.node("server", LockServer.class, Map.of())
                .peer("c1", Peer.sending(Send.to("server", new Acquire(1, LockMode.SHARED)),
                        Send.to("server", new Release(1))))
                .peer("c2", Peer.sending(Send.to("server", new Acquire(1, LockMode.EXCLUSIVE))))
                .silentPeers("c3", "c4")
                .then(deliver("c1", Acquire.class), OneNodeRuns.Now::takeSent)
                .then(deliver("c1", Release.class), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("c1", new ReleaseGranted(1)));
                    assertThat(server(now).locks.get(1).holders).isEmpty();
                })
                .then(deliver("c2", Acquire.class), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("c2", new Grant(1, LockMode.EXCLUSIVE)));
                    assertThat(server(now).pendingSize()).isZero();
                })
                .run();
    }

    @Test
    void messagesAboutUnknownLocks_areIgnored() {
        OneNodeRuns.node("server", LockServer.class, Map.of())
                .peer("c1", Peer.sending(Send.to("server", new Acquire(LockClient.LOCKS, LockMode.SHARED)),
                        Send.to("server", new RevokeDone(0))))
                .silentPeers("c2", "c3", "c4")
                .then(deliver("c1", Acquire.class))
                .then(deliver("c1", RevokeDone.class), now -> {
                    assertThat(now.takeSent()).isEmpty();
                    assertThat(server(now).pendingSize()).isZero();
                })
                .run();
    }
}
