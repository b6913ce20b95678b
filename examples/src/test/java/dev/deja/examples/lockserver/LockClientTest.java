package dev.deja.examples.lockserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.examples.lockserver.FakeEnv.Sent;
import dev.deja.node.NodeId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One client driven by hand through the paper's livelock scenario: the client caches lock 0 shared, a user wants it
 * exclusive and releases it while the server's revoke is on its way, and the server denies the release.
 */
class LockClientTest {
    private static final NodeId SERVER = new NodeId("server");
    private static final NodeId DRIVER = new NodeId("client");
    private static final double SHARED = 0.9;
    private static final double EXCLUSIVE = 0.1;
    private static final double UPGRADE = 0.1;
    private static final double NO_UPGRADE = 0.9;
    /** What the client tells the driver once all its users are done. */
    private static final Sent ALL_DONE = new Sent(DRIVER, new ClientStatus(LockClient.USERS, LockClient.USERS));

    private final LockClient client = new LockClient();

    private FakeEnv start(Map<String, String> args) {
        FakeEnv env = new FakeEnv("c1", List.of("server", "c2"), args);
        client.onStart(env);
        assertThat(env.timers).as("users wait for the driver's Start").isEmpty();
        env.draws(100L, 200L, 300L, 400L, 500L); // the five users' first think times
        client.onMessage(env, DRIVER, new Start());
        assertThat(env.timers).hasSize(5);
        return env;
    }

    /** User 0 locks lock 0 shared, holds it and unlocks it, so the client caches it shared and unused. */
    private void cacheLockZeroShared(FakeEnv env) {
        env.draws(0, SHARED);
        client.onTimer(env, null, new UserTimer(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Acquire(0, LockMode.SHARED)));
        env.draws(10L);
        client.onMessage(env, SERVER, new Grant(0, LockMode.SHARED));
        assertThat(client.users.get(0).state).isEqualTo(LockUser.State.HOLDING);
        env.draws(NO_UPGRADE, 100L);
        client.onTimer(env, null, new UserTimer(0));
        assertThat(client.locks.get(0).cached).isEqualTo(LockMode.SHARED);
        assertThat(client.locks.get(0).localUsers).isZero();
    }

    /** User 1 wants lock 0 exclusive: the client releases its shared copy first. */
    private void upgradeLockZero(FakeEnv env) {
        env.draws(0, EXCLUSIVE);
        client.onTimer(env, null, new UserTimer(1));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Release(0)));
        assertThat(client.locks.get(0).releasePending).isTrue();
    }

    @Test
    void deniedRelease_withTheBug_isRetriedForeverAndTheRevokeNeverProceeds() {
        FakeEnv env = start(Map.of("bug", "release-retry-livelock"));
        cacheLockZeroShared(env);
        upgradeLockZero(env);
        client.onMessage(env, SERVER, new Revoke(0));
        assertThat(env.takeSent()).as("the revoking task waits for the pending release").isEmpty();
        for (int denial = 1; denial <= 100; denial++) {
            client.onMessage(env, SERVER, new ReleaseDenied(0));
            assertThat(env.takeSent()).as("denial %d", denial).containsExactly(new Sent(SERVER, new Release(0)));
        }
        CachedLock lock = client.locks.get(0);
        assertThat(lock.releasePending).isTrue();
        assertThat(lock.revokePending).isTrue();
        assertThat(lock.releaseDenials).isEqualTo(100);
        assertThat(lock.cached).isEqualTo(LockMode.SHARED);
    }

    @Test
    void deniedRelease_withoutTheBug_letsTheRevokeTakeTheLockAndAcquiresItAgain() {
        FakeEnv env = start(Map.of());
        cacheLockZeroShared(env);
        upgradeLockZero(env);
        client.onMessage(env, SERVER, new Revoke(0));
        assertThat(env.takeSent()).isEmpty();
        client.onMessage(env, SERVER, new ReleaseDenied(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new RevokeDone(0)),
                new Sent(SERVER, new Acquire(0, LockMode.EXCLUSIVE)));
        assertThat(client.locks.get(0).cached).isNull();
    }

    @Test
    void deniedRelease_withoutTheBug_beforeTheRevokeArrives_waitsForIt() {
        FakeEnv env = start(Map.of());
        cacheLockZeroShared(env);
        upgradeLockZero(env);
        client.onMessage(env, SERVER, new ReleaseDenied(0));
        assertThat(env.takeSent()).as("neither a second release nor an acquire").isEmpty();
        client.onMessage(env, SERVER, new Revoke(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new RevokeDone(0)),
                new Sent(SERVER, new Acquire(0, LockMode.EXCLUSIVE)));
    }

    @Test
    void grantedRelease_isFollowedByTheExclusiveAcquire() {
        FakeEnv env = start(Map.of());
        cacheLockZeroShared(env);
        upgradeLockZero(env);
        client.onMessage(env, SERVER, new ReleaseGranted(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Acquire(0, LockMode.EXCLUSIVE)));
    }

    @Test
    void revoke_ofALockInUse_waitsUntilTheUserUnlocksIt() {
        FakeEnv env = start(Map.of());
        env.draws(0, SHARED);
        client.onTimer(env, null, new UserTimer(0));
        env.draws(10L);
        client.onMessage(env, SERVER, new Grant(0, LockMode.SHARED));
        env.takeSent();
        client.onMessage(env, SERVER, new Revoke(0));
        assertThat(env.takeSent()).isEmpty();
        env.draws(0, SHARED);
        client.onTimer(env, null, new UserTimer(2));
        assertThat(env.takeSent()).as("a revoked lock is not handed to another user").isEmpty();
        env.draws(NO_UPGRADE, 100L);
        client.onTimer(env, null, new UserTimer(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new RevokeDone(0)),
                new Sent(SERVER, new Acquire(0, LockMode.SHARED)));
    }

    @Test
    void upgrade_ofASharedHold_releasesTheLockAndAcquiresItExclusive() {
        FakeEnv env = start(Map.of());
        env.draws(0, SHARED);
        client.onTimer(env, null, new UserTimer(0));
        env.draws(10L);
        client.onMessage(env, SERVER, new Grant(0, LockMode.SHARED));
        env.takeSent();
        env.draws(UPGRADE);
        client.onTimer(env, null, new UserTimer(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Release(0)));
        assertThat(client.users.get(0).state).isEqualTo(LockUser.State.WAITING);
        assertThat(client.users.get(0).roundsDone).as("an upgrade is part of the same round").isZero();
        client.onMessage(env, SERVER, new ReleaseGranted(0));
        assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Acquire(0, LockMode.EXCLUSIVE)));
        env.draws(10L);
        client.onMessage(env, SERVER, new Grant(0, LockMode.EXCLUSIVE));
        assertThat(client.users.get(0).state).isEqualTo(LockUser.State.HOLDING);
        env.draws(100L);
        client.onTimer(env, null, new UserTimer(0));
        assertThat(client.users.get(0).roundsDone).isEqualTo(1);
    }

    @Test
    void lastUserFinishing_isReportedToTheDriver() {
        FakeEnv env = start(Map.of());
        runRounds(env, 0, LockClient.DEFAULT_ROUNDS, LockClient.DEFAULT_ROUNDS);
        assertThat(client.finishedUsers()).isEqualTo(LockClient.USERS);
        assertThat(env.takeSent()).containsExactly(ALL_DONE);
    }

    @Test
    void roundsArgument_setsHowManyRoundsEachUserRuns() {
        FakeEnv env = start(Map.of("rounds", "5"));
        runRounds(env, 0, LockClient.DEFAULT_ROUNDS, 5);
        assertThat(client.finishedUsers()).as("after the default rounds").isZero();
        assertThat(env.takeSent()).doesNotContain(ALL_DONE);
        runRounds(env, LockClient.DEFAULT_ROUNDS, 5, 5);
        assertThat(client.finishedUsers()).isEqualTo(LockClient.USERS);
        assertThat(env.takeSent()).containsExactly(ALL_DONE);
    }

    @Test
    void roundsArgument_outOfRange_isRefusedNamingTheRange() {
        for (String bad : List.of("0", "-2", "many", "1000001")) {
            FakeEnv env = new FakeEnv("c1", List.of("server"), Map.of("rounds", bad));
            assertThatThrownBy(() -> new LockClient().onStart(env))
                    .as("rounds=%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("rounds='" + bad + "'").hasMessageContaining("from 1 to 1000000");
        }
    }

    /**
     * Rounds {@code from} to {@code to - 1} of the {@code total} each user was asked for: every user locks its own lock
     * shared and unlocks it without upgrading.
     */
    private void runRounds(FakeEnv env, int from, int to, int total) {
        for (int round = from; round < to; round++) {
            for (int user = 0; user < LockClient.USERS; user++) {
                boolean fromServer = round == 0 && user < LockClient.LOCKS; // later the locks are cached
                env.draws(user % LockClient.LOCKS, SHARED);
                if (!fromServer) {
                    env.draws(10L);
                }
                client.onTimer(env, null, new UserTimer(user));
                if (fromServer) {
                    assertThat(env.takeSent()).containsExactly(new Sent(SERVER, new Acquire(user, LockMode.SHARED)));
                    env.draws(10L);
                    client.onMessage(env, SERVER, new Grant(user, LockMode.SHARED));
                }
            }
            for (int user = 0; user < LockClient.USERS; user++) {
                assertThat(client.users.get(user).state).as("round %d user %d", round, user)
                        .isEqualTo(LockUser.State.HOLDING);
                boolean last = round == total - 1;
                env.draws(last ? new Number[] {NO_UPGRADE} : new Number[] {NO_UPGRADE, 100L});
                client.onTimer(env, null, new UserTimer(user));
            }
        }
    }

    @Test
    void unknownBug_isRefusedNamingTheValidOnes() {
        assertThatThrownBy(() -> client.onStart(new FakeEnv("c1", List.of("server"), Map.of("bug", "nope"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nope").hasMessageContaining("release-retry-livelock");
    }
}
