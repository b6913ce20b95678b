package dev.deja.examples.lockserver;

import static dev.deja.examples.testing.OneNodeRuns.deliver;
import static dev.deja.examples.testing.OneNodeRuns.doubleOf;
import static dev.deja.examples.testing.OneNodeRuns.intBelow;
import static dev.deja.examples.testing.OneNodeRuns.longIn;
import static dev.deja.examples.testing.OneNodeRuns.timer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.testing.InMemoryRuns;
import dev.deja.examples.testing.OneNodeRuns;
import dev.deja.examples.testing.OneNodeRuns.Now;
import dev.deja.examples.testing.OneNodeRuns.Peer;
import dev.deja.examples.testing.OneNodeRuns.Send;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * One client on the simulator, its server and driver scripted, through the paper's livelock scenario: the client
 * caches lock 0 shared, a user wants it exclusive and releases it while the server's revoke is on its way, and the
 * server denies the release. Every random draw of the client is scripted; each user timer is told apart by its
 * delay (the users' first think times are 100 to 500 ms, holds 10 ms, later think times 100 ms).
 */
class LockClientTest {
    private static final long SHARED = doubleOf(0.9);
    private static final long EXCLUSIVE = doubleOf(0.1);
    private static final long UPGRADE = doubleOf(0.1);
    private static final long NO_UPGRADE = doubleOf(0.9);
    private static final long HOLD_10 = longIn(LockClient.MIN_HOLD_MILLIS, LockClient.MAX_HOLD_MILLIS + 1, 10);
    /** What the client tells the driver once all its users are done. */
    private static final Send ALL_DONE = Send.to("client", new ClientStatus(LockClient.USERS, LockClient.USERS));

    private static long think(long millis) {
        return longIn(LockClient.MIN_THINK_MILLIS, LockClient.MAX_THINK_MILLIS + 1, millis);
    }

    private static long lock(int lock) {
        return intBelow(LockClient.LOCKS, lock);
    }

    private static LockClient client(Now now) {
        return (LockClient) now.node();
    }

    /** A server that grants every acquire and answers a release with {@code onRelease}'s messages. */
    private static Peer server(BiFunction<Integer, Integer, List<Object>> onRelease) {
        int[] releases = {0};
        return Peer.answering((from, message) -> {
            List<Object> out = switch (message) {
                case Acquire(int lock, LockMode mode) -> List.of(new Grant(lock, mode));
                case Release(int lock) -> onRelease.apply(lock, ++releases[0]);
                default -> List.of();
            };
            return out.stream().map(m -> Send.to("c1", m)).toList();
        });
    }

    /** c1 with {@code args} takes the driver's Start; its five users think 100 to 500 ms. */
    private static OneNodeRuns.Scenario start(Map<String, String> args, Peer server) {
        return OneNodeRuns.node("c1", LockClient.class, args)
                .peer("client", Peer.sending(Send.to("c1", new Start()))).peer("server", server).silentPeers("c2")
                .draws(think(100), think(200), think(300), think(400), think(500))
                .then(deliver("client", Start.class), now -> assertThat(now.pendingTimers())
                        .as("five user timers, none set before the driver's Start").hasSize(5)
                        .allSatisfy(timer -> assertThat(timer.causeStep()).isEqualTo(0)));
    }

    /** User 0 locks lock 0 shared, holds it and unlocks it, so the client caches it shared and unused. */
    private static OneNodeRuns.Scenario cacheLockZeroShared(OneNodeRuns.Scenario scenario) {
        return scenario.draws(lock(0), SHARED)
                .then(timer(100), now -> assertThat(now.takeSent())
                        .containsExactly(Send.to("server", new Acquire(0, LockMode.SHARED))))
                .draws(HOLD_10)
                .then(deliver("server", Grant.class),
                        now -> assertThat(client(now).users.get(0).state).isEqualTo(LockUser.State.HOLDING))
                .draws(NO_UPGRADE, think(100))
                .then(timer(10), now -> {
                    assertThat(client(now).locks.get(0).cached).isEqualTo(LockMode.SHARED);
                    assertThat(client(now).locks.get(0).localUsers).isZero();
                });
    }

    /** User 1 wants lock 0 exclusive: the client releases its shared copy first. */
    private static OneNodeRuns.Scenario upgradeLockZero(OneNodeRuns.Scenario scenario) {
        return scenario.draws(lock(0), EXCLUSIVE)
                .then(timer(200), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("server", new Release(0)));
                    assertThat(client(now).locks.get(0).releasePending).isTrue();
                });
    }

    /** The server revokes the lock on the first release and denies every release. */
    private static Peer revokingAndDenying() {
        return server((lock, count) -> count == 1 ? List.of(new Revoke(lock), new ReleaseDenied(lock))
                : List.of(new ReleaseDenied(lock)));
    }

    @Test
    void deniedRelease_withTheBug_isRetriedForeverAndTheRevokeNeverProceeds() {
        OneNodeRuns.Scenario scenario = upgradeLockZero(cacheLockZeroShared(
                start(Map.of("bug", "release-retry-livelock"), revokingAndDenying())))
                .then(deliver("server", Revoke.class), now -> assertThat(now.takeSent())
                        .as("the revoking task waits for the pending release").isEmpty());
        for (int denial = 1; denial <= 100; denial++) {
            int number = denial;
            scenario.then(deliver("server", ReleaseDenied.class), now -> assertThat(now.takeSent())
                    .as("denial %d", number).containsExactly(Send.to("server", new Release(0))));
        }
        CachedLock lock = ((LockClient) scenario.run().node()).locks.get(0);
        assertThat(lock.releasePending).isTrue();
        assertThat(lock.revokePending).isTrue();
        assertThat(lock.releaseDenials).isEqualTo(100);
        assertThat(lock.cached).isEqualTo(LockMode.SHARED);
    }

    @Test
    void deniedRelease_withoutTheBug_letsTheRevokeTakeTheLockAndAcquiresItAgain() {
        upgradeLockZero(cacheLockZeroShared(start(Map.of(), revokingAndDenying())))
                .then(deliver("server", Revoke.class), now -> assertThat(now.takeSent()).isEmpty())
                .then(deliver("server", ReleaseDenied.class), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("server", new RevokeDone(0)),
                            Send.to("server", new Acquire(0, LockMode.EXCLUSIVE)));
                    assertThat(client(now).locks.get(0).cached).isNull();
                })
                .run();
    }

    @Test
    void deniedRelease_withoutTheBug_beforeTheRevokeArrives_waitsForIt() {
        upgradeLockZero(cacheLockZeroShared(start(Map.of(), revokingAndDenying())))
                .then(deliver("server", ReleaseDenied.class), now -> assertThat(now.takeSent())
                        .as("neither a second release nor an acquire").isEmpty())
                .then(deliver("server", Revoke.class), now -> assertThat(now.takeSent()).containsExactly(
                        Send.to("server", new RevokeDone(0)), Send.to("server", new Acquire(0, LockMode.EXCLUSIVE))))
                .run();
    }

    @Test
    void grantedRelease_isFollowedByTheExclusiveAcquire() {
        upgradeLockZero(cacheLockZeroShared(start(Map.of(), server((lock, count) -> List.of(new ReleaseGranted(lock))))))
                .then(deliver("server", ReleaseGranted.class), now -> assertThat(now.takeSent())
                        .containsExactly(Send.to("server", new Acquire(0, LockMode.EXCLUSIVE))))
                .run();
    }

    @Test
    void revoke_ofALockInUse_waitsUntilTheUserUnlocksIt() {
        Peer grantingThenRevoking = Peer.answering((from, message) -> message instanceof Acquire(int lock, LockMode mode)
                ? List.of(Send.to("c1", new Grant(lock, mode)), Send.to("c1", new Revoke(lock))) : List.of());
        start(Map.of(), grantingThenRevoking)
                .draws(lock(0), SHARED).then(timer(100))
                .draws(HOLD_10).then(deliver("server", Grant.class), Now::takeSent)
                .then(deliver("server", Revoke.class), now -> assertThat(now.takeSent()).isEmpty())
                .draws(lock(0), SHARED)
                .then(timer(300), now -> assertThat(now.takeSent()).as("a revoked lock is not handed to another user")
                        .isEmpty())
                .draws(NO_UPGRADE, think(100))
                .then(timer(10), now -> assertThat(now.takeSent()).containsExactly(
                        Send.to("server", new RevokeDone(0)), Send.to("server", new Acquire(0, LockMode.SHARED))))
                .run();
    }

    @Test
    void upgrade_ofASharedHold_releasesTheLockAndAcquiresItExclusive() {
        start(Map.of(), server((lock, count) -> List.of(new ReleaseGranted(lock))))
                .draws(lock(0), SHARED).then(timer(100))
                .draws(HOLD_10).then(deliver("server", Grant.class), Now::takeSent)
                .draws(UPGRADE)
                .then(timer(10), now -> {
                    assertThat(now.takeSent()).containsExactly(Send.to("server", new Release(0)));
                    assertThat(client(now).users.get(0).state).isEqualTo(LockUser.State.WAITING);
                    assertThat(client(now).users.get(0).roundsDone).as("an upgrade is part of the same round").isZero();
                })
                .then(deliver("server", ReleaseGranted.class), now -> assertThat(now.takeSent())
                        .containsExactly(Send.to("server", new Acquire(0, LockMode.EXCLUSIVE))))
                .draws(HOLD_10)
                .then(deliver("server", Grant.class),
                        now -> assertThat(client(now).users.get(0).state).isEqualTo(LockUser.State.HOLDING))
                .draws(think(100))
                .then(timer(10), now -> assertThat(client(now).users.get(0).roundsDone).isEqualTo(1))
                .run();
    }

    @Test
    void lastUserFinishing_isReportedToTheDriver() {
        OneNodeRuns.Scenario scenario = start(Map.of(), server((lock, count) -> List.of()));
        runRounds(scenario, 0, LockClient.DEFAULT_ROUNDS, LockClient.DEFAULT_ROUNDS);
        scenario.then(timer(10), now -> {
            assertThat(client(now).finishedUsers()).isEqualTo(LockClient.USERS);
            assertThat(now.takeSent()).containsExactly(ALL_DONE);
        }).run();
    }

    @Test
    void roundsArgument_setsHowManyRoundsEachUserRuns() {
        OneNodeRuns.Scenario scenario = start(Map.of("rounds", "5"), server((lock, count) -> List.of()));
        runRounds(scenario, 0, LockClient.DEFAULT_ROUNDS, 5);
        scenario.then(timer(10), now -> {
            assertThat(client(now).finishedUsers()).as("after the default rounds").isZero();
            assertThat(now.takeSent()).doesNotContain(ALL_DONE);
        });
        runRounds(scenario, LockClient.DEFAULT_ROUNDS, 5, 5);
        scenario.then(timer(10), now -> {
            assertThat(client(now).finishedUsers()).isEqualTo(LockClient.USERS);
            assertThat(now.takeSent()).containsExactly(ALL_DONE);
        }).run();
    }

    /**
     * Rounds {@code from} to {@code to - 1} of the {@code total} each user was asked for: every user locks its own lock
     * shared and unlocks it without upgrading. The last user's last unlock is left to the caller, whose check sees it.
     */
    private static void runRounds(OneNodeRuns.Scenario scenario, int from, int to, int total) {
        for (int round = from; round < to; round++) {
            for (int user = 0; user < LockClient.USERS; user++) {
                boolean fromServer = round == 0 && user < LockClient.LOCKS; // later the locks are cached
                scenario.draws(lock(user % LockClient.LOCKS), SHARED);
                if (!fromServer) {
                    scenario.draws(HOLD_10);
                }
                int acquiring = user;
                int number = round;
                scenario.then(timer(round == 0 ? 100L * (user + 1) : 100), now -> {
                    if (fromServer) {
                        assertThat(now.takeSent())
                                .containsExactly(Send.to("server", new Acquire(acquiring, LockMode.SHARED)));
                    }
                    if (acquiring == LockClient.USERS - 1) {
                        assertThat(client(now).users).as("round %d", number)
                                .allSatisfy(u -> assertThat(u.state).isEqualTo(LockUser.State.HOLDING));
                    }
                });
                if (fromServer) {
                    scenario.draws(HOLD_10).then(deliver("server", Grant.class));
                }
            }
            boolean last = round == total - 1;
            for (int user = 0; user < LockClient.USERS; user++) {
                scenario.draws(last ? new long[] {NO_UPGRADE} : new long[] {NO_UPGRADE, think(100)});
                if (user < LockClient.USERS - 1 || round < to - 1) {
                    scenario.then(timer(10));
                }
            }
        }
    }

    /** What c1 logs when it starts with {@code args} beside a server: a handler that throws is logged. */
    private static List<String> startOutput(Map<String, String> args) {
        return InMemoryRuns.nodeOutput(SimulationSettings.builder()
                .node(new NodeId("c1"), LockClient.class.getName(), args)
                .node(new NodeId("server"), LockServer.class.getName(), Map.of()).maxVirtualMillis(1).build());
    }

    @Test
    void roundsArgument_outOfRange_isRefusedNamingTheRange() {
        for (String bad : List.of("0", "-2", "many", "1000001")) {
            assertThat(startOutput(Map.of("rounds", bad))).as("rounds=%s", bad).anySatisfy(line -> assertThat(line)
                    .contains("handler threw java.lang.IllegalArgumentException")
                    .contains("rounds='" + bad + "'").contains("from 1 to 1000000"));
        }
    }

    @Test
    void unknownBug_isRefusedNamingTheValidOnes() {
        assertThat(startOutput(Map.of("bug", "nope"))).anySatisfy(line -> assertThat(line)
                .contains("handler threw java.lang.IllegalArgumentException")
                .contains("nope").contains("release-retry-livelock"));
    }
}
