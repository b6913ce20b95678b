package dev.deja.examples.lockserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.testing.InMemoryRuns;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The whole lock service (a server and 20 clients of 5 lock users, the paper's setting) on the simulator (in
 * memory) over many seeds, with messages of 1..10 ms and none lost. Without the bug every user finishes
 * and the pending queue ends empty; with it some seeds livelock. In both, the paper's safety property holds after
 * every step: clients that use a lock at the same time all use it shared. Every failure names its run's command.
 */
class LockServiceTest {
    private static final int CLIENTS = 20;
    private static final LockServerExample LOCKSERVER = new LockServerExample();
    private static final long RUN_LIMIT_MILLIS = 20_000;

    /** One run; {@code quiet}: nothing was left to happen before the time limit (a livelock goes on to it). */
    private record Outcome(InMemoryRuns.Run run, boolean quiet, List<String> unsafe, LockDriver driver) {
        LockServer server() {
            return (LockServer) ((LockNode) run.nodes().get(LockClient.SERVER)).role();
        }

        List<LockClient> clients() {
            return run.nodes().entrySet().stream().filter(e -> e.getValue() instanceof LockNode)
                    .filter(e -> !e.getKey().equals(LockClient.SERVER))
                    .map(e -> (LockClient) ((LockNode) e.getValue()).role()).toList();
        }
    }

    private static Outcome run(long seed, Optional<String> bug) {
        List<String> unsafe = new ArrayList<>();
        InMemoryRuns.Run run = InMemoryRuns.run(LOCKSERVER, CLIENTS + 1, bug, seed, settings -> settings.delayMillis(1, 10)
                .maxVirtualMillis(RUN_LIMIT_MILLIS).stop(SimulationSettings.Stop.AT_LIMIT), Optional.empty(), (step, view) -> {
                    if (unsafe.isEmpty()) {
                        safetyViolation(view.liveNodes()).ifPresent(problem -> unsafe.add(view.virtualMillis() + " ms: "
                                + problem));
                    }
                    return true;
                });
        boolean quiet = run.result().ending() == SimulationResult.Ending.QUIESCENT;
        return new Outcome(run, quiet, unsafe, (LockDriver) run.nodes().get(ExampleSimulation.DRIVER_ID));
    }

    /** A lock used at once by a user in exclusive mode and by any other user, on any client. */
    private static Optional<String> safetyViolation(Map<NodeId, Object> nodes) {
        for (int lock = 0; lock < LockClient.LOCKS; lock++) {
            List<String> users = new ArrayList<>();
            boolean exclusive = false;
            for (Map.Entry<NodeId, Object> entry : nodes.entrySet()) {
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
            String repro = "reproduce: " + outcome.run().command();
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
            String repro = "reproduce: " + outcome.run().command();
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
