package dev.deja.examples.lockserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.testing.SimCluster;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The whole lock service (a server and 20 clients of 5 lock users, the paper's setting) on the in-memory
 * {@link SimCluster} over many seeds, with messages of 1..10 ms and none lost. Without the bug every user finishes
 * and the pending queue ends empty; with it some seeds livelock. In both, the paper's safety property holds after
 * every handler: clients that use a lock at the same time all use it shared. Every failure names its seed.
 */
class LockServiceTest {
    private static final int CLIENTS = 20;
    private static final SimCluster.Network NETWORK = new SimCluster.Network(0.0, 10, 0.0, 10, 0.0);
    private static final long RUN_LIMIT_MILLIS = 20_000;
    private static final int RUN_LIMIT_EVENTS = 200_000;

    private record Outcome(SimCluster cluster, boolean quiet, List<String> unsafe, LockDriver driver) {
        LockServer server() {
            return (LockServer) ((LockNode) cluster.nodes().get(LockClient.SERVER)).role();
        }

        List<LockClient> clients() {
            return cluster.nodes().entrySet().stream().filter(e -> e.getValue() instanceof LockNode)
                    .filter(e -> !e.getKey().equals(LockClient.SERVER))
                    .map(e -> (LockClient) ((LockNode) e.getValue()).role()).toList();
        }
    }

    private static Outcome run(long seed, Optional<String> bug) {
        SimCluster cluster = new SimCluster(seed, NETWORK);
        cluster.server("server", LockNode::new);
        for (int i = 1; i <= CLIENTS; i++) {
            cluster.server("c" + i, LockNode::new);
        }
        LockDriver driver = new LockDriver();
        cluster.client("client", () -> driver);
        List<String> unsafe = new ArrayList<>();
        cluster.observe((id, node) -> {
            if (unsafe.isEmpty()) {
                safetyViolation(cluster).ifPresent(problem -> unsafe.add(cluster.nowMillis() + " ms: " + problem));
            }
        });
        cluster.start(bug.map(name -> Map.of("bug", name)).orElse(Map.of()));
        boolean quiet = cluster.run(RUN_LIMIT_MILLIS, RUN_LIMIT_EVENTS);
        return new Outcome(cluster, quiet, unsafe, driver);
    }

    /** A lock used at once by a user in exclusive mode and by any other user, on any client. */
    private static Optional<String> safetyViolation(SimCluster cluster) {
        for (int lock = 0; lock < LockClient.LOCKS; lock++) {
            List<String> users = new ArrayList<>();
            boolean exclusive = false;
            for (Map.Entry<NodeId, Node> entry : cluster.nodes().entrySet()) {
                if (entry.getValue() instanceof LockNode node && node.role() instanceof LockClient client) {
                    CachedLock cached = client.locks.get(lock);
                    if (cached != null && cached.localUsers > 0) {
                        users.add(entry.getKey() + "x" + cached.localUsers + ":" + cached.localMode);
                        exclusive |= cached.localMode == LockMode.EXCLUSIVE;
                    }
                }
            }
            int holders = users.stream().mapToInt(u -> Integer.parseInt(u.substring(u.indexOf('x') + 1, u.indexOf(':'))))
                    .sum();
            if (exclusive && holders > 1) {
                return Optional.of("lock " + lock + " used by " + users);
            }
        }
        return Optional.empty();
    }

    @Test
    void withoutTheBug_everyUserFinishes_andThePendingQueueEndsEmpty() {
        for (long seed = 0; seed < 100; seed++) {
            Outcome outcome = run(seed, Optional.empty());
            String repro = "seed " + seed + " (LockServiceTest, no bug)";
            assertThat(outcome.unsafe()).as(repro).isEmpty();
            assertThat(outcome.quiet()).as("the run went quiet: %s", repro).isTrue();
            assertThat(outcome.server().pendingLocks()).as(repro).isEmpty();
            assertThat(outcome.clients()).as(repro).allMatch(c -> c.finishedUsers() == LockClient.USERS);
            assertThat(outcome.driver().finished()).as("the driver heard every client finish: %s", repro).isTrue();
            for (ServerLock lock : outcome.server().locks.values()) {
                assertThat(lock.waiters).as("%s: lock %d", repro, lock.lock).isEmpty();
                assertThat(lock.revoking).as("%s: lock %d", repro, lock.lock).isEmpty();
            }
        }
    }

    @Test
    void withTheBug_someSeedsLivelock_onOneLockWithItsRevokeHeldUpForever() {
        int livelocks = 0;
        for (long seed = 0; seed < 40; seed++) {
            Outcome outcome = run(seed, Optional.of("release-retry-livelock"));
            String repro = "seed " + seed + " (LockServiceTest, release-retry-livelock)";
            assertThat(outcome.unsafe()).as("the bug breaks liveness, not safety: %s", repro).isEmpty();
            if (outcome.quiet()) {
                assertThat(outcome.driver().finished()).as(repro).isTrue();
                continue;
            }
            assertThat(outcome.driver().finished()).as(repro).isFalse();
            livelocks++;
            List<Integer> stuck = new ArrayList<>();
            for (LockClient client : outcome.clients()) {
                for (CachedLock lock : client.locks.values()) {
                    if (lock.revokePending && lock.releasePending) {
                        stuck.add(lock.lock);
                        assertThat(lock.releaseDenials).as(repro).isGreaterThan(100);
                    }
                }
            }
            assertThat(stuck).as("a revoke held up by a retried release: %s", repro).isNotEmpty();
            assertThat(outcome.server().pendingLocks()).as(repro).containsAll(stuck);
        }
        System.out.printf("LockServiceTest: %d of 40 seeds livelocked with release-retry-livelock%n", livelocks);
        assertThat(livelocks).as("seeds 0..39 that livelocked").isPositive();
    }
}
