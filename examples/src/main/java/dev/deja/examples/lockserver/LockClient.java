package dev.deja.examples.lockserver;

import dev.deja.examples.ExampleArguments;
import dev.deja.node.Env;
import dev.deja.node.Exposed;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A lock client, after Boxwood's lock service as checked in the WiDS Checker paper (section 4.2).
 *
 * <p>Once the workload driver says {@link Start}, it runs {@value #USERS} concurrent lock users, each of which
 * {@value #DEFAULT_ROUNDS} times (argument {@code rounds=K}) thinks for a random while, locks one of the
 * {@value #LOCKS} locks in a random mode, holds it for a random while and unlocks it; a user holding its lock shared
 * sometimes upgrades it to exclusive first (a reader that decides to write). Locks are cached: once granted, a lock
 * stays with the client and its users take and drop it locally until the server revokes it. A revoke starts a
 * revoking task that gives the lock back ({@link RevokeDone}) once no local user holds it and no release of it is
 * pending. A user that wants exclusive mode while the client caches the lock shared (an upgrade among them) first
 * releases it ({@link Release}, setting {@code releasePending}) and then acquires it again. Waiting users are served
 * oldest first, and a lock one of them waits for is not handed to a later one.
 *
 * <p>The server denies a release while the lock is in its pending queue, i.e. while a revoke of it is on its
 * way. Correctly, the client then lets the revoke take the lock and asks for it again afterwards. With the bug
 * {@code release-retry-livelock} it retries the release at once, in the same handler (the paper's tight loop):
 * {@code releasePending} is never seen clear, so the revoking task never proceeds, the server keeps denying,
 * and the lock stays in the pending queue for good.
 */
public final class LockClient implements Node {
    /** The bugs of this example, name to description, in CLI order. */
    static final Map<String, String> BUGS = Map.of(
            "release-retry-livelock", "a client retries a denied release at once, in a tight loop with the "
                    + "releasepending flag set, so the revoking task never proceeds (the paper's livelock)");

    /** How many locks the server has, numbered from 0. */
    static final int LOCKS = 4;
    /** Concurrent lock users per client. */
    static final int USERS = 5;
    /** Lock-and-unlock rounds each user runs before it is done, unless argument {@code rounds} says otherwise. */
    static final int DEFAULT_ROUNDS = 3;
    /** The most rounds argument {@code rounds} may ask for. */
    static final int MAX_ROUNDS = 1_000_000;
    static final long MIN_THINK_MILLIS = 100;
    static final long MAX_THINK_MILLIS = 1_500;
    static final long MIN_HOLD_MILLIS = 5;
    static final long MAX_HOLD_MILLIS = 50;
    /** The chance that a user wants its lock in exclusive mode. */
    static final double EXCLUSIVE_PROBABILITY = 0.5;
    /** The chance that a user holding its lock shared upgrades it to exclusive before unlocking it. */
    static final double UPGRADE_PROBABILITY = 0.3;
    /** The server's id. */
    static final NodeId SERVER = new NodeId("server");

    private boolean retryBug;
    private int rounds = DEFAULT_ROUNDS;
    final Map<Integer, CachedLock> locks = new TreeMap<>();
    final List<LockUser> users = new ArrayList<>();
    /** The workload driver, once it said {@link Start}: told when the last user finishes. */
    private NodeId referee;
    /** Users waiting for their lock, oldest first. */
    private final ArrayDeque<LockUser> waiting = new ArrayDeque<>();

    public LockClient() {
    }

    /** Whether {@code args} switch the bug on; an unknown bug is refused naming the valid ones. */
    static boolean parseBug(Map<String, String> args) {
        String bug = args.get("bug");
        if (bug != null && !BUGS.containsKey(bug)) {
            throw new IllegalArgumentException("unknown lockserver bug '" + bug + "'; valid bugs: "
                    + String.join(", ", BUGS.keySet()));
        }
        return bug != null;
    }

    /** Argument {@code rounds}: {@value #DEFAULT_ROUNDS} if absent; refused outside 1 to {@value #MAX_ROUNDS}. */
    static int parseRounds(String text) {
        return ExampleArguments.intFromTo("lockserver", "rounds", text, DEFAULT_ROUNDS, 1, MAX_ROUNDS,
                "lock-and-unlock rounds per lock user");
    }

    @Override
    public void onStart(Env env) {
        retryBug = parseBug(env.args());
        rounds = parseRounds(env.args().get("rounds"));
        for (int lock = 0; lock < LOCKS; lock++) {
            locks.put(lock, new CachedLock(lock));
        }
        for (int id = 0; id < USERS; id++) {
            users.add(new LockUser(id));
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (!(tag instanceof UserTimer(int id)) || id < 0 || id >= users.size()) {
            env.log("ignored an unexpected timer " + tag);
            return;
        }
        LockUser user = users.get(id);
        switch (user.state) {
            case THINKING -> {
                user.lock = env.random().nextInt(LOCKS);
                user.mode = env.random().nextDouble() < EXCLUSIVE_PROBABILITY ? LockMode.EXCLUSIVE : LockMode.SHARED;
                user.state = LockUser.State.WAITING;
                waiting.addLast(user);
            }
            case HOLDING -> {
                locks.get(user.lock).localUsers--;
                if (user.mode == LockMode.SHARED && env.random().nextDouble() < UPGRADE_PROBABILITY) {
                    // A reader that decides to write: it gives up its shared hold and waits for exclusive mode.
                    user.mode = LockMode.EXCLUSIVE;
                    user.state = LockUser.State.WAITING;
                    waiting.addLast(user);
                    advance(env);
                    return;
                }
                user.roundsDone++;
                if (user.roundsDone == rounds) {
                    user.state = LockUser.State.DONE;
                    if (finishedUsers() == users.size()) {
                        env.send(referee, new ClientStatus(users.size(), users.size()));
                    }
                } else {
                    think(env, user);
                }
            }
            default -> env.log("ignored a timer of user " + id + " while " + user.state);
        }
        advance(env);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case Grant grant -> {
                CachedLock lock = locks.get(grant.lock());
                lock.acquiring = false;
                lock.cached = grant.mode();
            }
            case Revoke revoke -> locks.get(revoke.lock()).revokePending = true;
            case ReleaseGranted granted -> {
                CachedLock lock = locks.get(granted.lock());
                lock.releasePending = false;
                lock.cached = null;
            }
            case ReleaseDenied denied -> onReleaseDenied(env, locks.get(denied.lock()));
            case Start _ -> {
                if (referee == null) {
                    referee = from;
                    users.forEach(user -> think(env, user));
                }
                return;
            }
            default -> {
                env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
                return;
            }
        }
        advance(env);
    }

    private void onReleaseDenied(Env env, CachedLock lock) {
        lock.releasePending = false;
        lock.releaseDenials++;
        if (retryBug) {
            // The paper's bug: the retry is a tight loop, so the flag is set again before the revoking task,
            // which waits for it to clear, gets to run.
            lock.releasePending = true;
            env.send(SERVER, new Release(lock.lock));
        } else {
            // The lock is in the server's pending queue, so a revoke is on its way: let it take the lock, and
            // acquire it again in the wanted mode afterwards.
            lock.revokeExpected = true;
        }
    }

    /** Runs the revoking tasks that can proceed, then serves the waiting users, oldest first. */
    private void advance(Env env) {
        for (CachedLock lock : locks.values()) {
            if (lock.revocable()) {
                lock.cached = null;
                lock.revokePending = false;
                lock.revokeExpected = false;
                env.send(SERVER, new RevokeDone(lock.lock));
            }
        }
        Set<Integer> passed = new TreeSet<>();
        for (Iterator<LockUser> it = waiting.iterator(); it.hasNext(); ) {
            LockUser user = it.next();
            if (passed.contains(user.lock)) {
                continue; // an older user waits for this lock
            }
            if (take(env, user)) {
                it.remove();
                user.state = LockUser.State.HOLDING;
                env.setTimer(Duration.ofMillis(env.random().nextLong(MIN_HOLD_MILLIS, MAX_HOLD_MILLIS + 1)),
                        new UserTimer(user.id));
            } else {
                passed.add(user.lock);
            }
        }
    }

    /** Gives {@code user} its lock if the client holds it in a mode that allows; otherwise asks the server. */
    private boolean take(Env env, LockUser user) {
        CachedLock lock = locks.get(user.lock);
        if (lock.revokePending || lock.releasePending || lock.acquiring || lock.revokeExpected) {
            return false;
        }
        if (lock.cached == null) {
            lock.acquiring = true;
            env.send(SERVER, new Acquire(lock.lock, user.mode));
            return false;
        }
        if (lock.cached.covers(user.mode)) {
            if (lock.localUsers == 0 || (user.mode == LockMode.SHARED && lock.localMode == LockMode.SHARED)) {
                lock.localUsers++;
                lock.localMode = user.mode;
                return true;
            }
            return false;
        }
        // Cached shared, wanted exclusive: the protocol releases the lock first and acquires it again.
        if (lock.localUsers == 0) {
            lock.releasePending = true;
            env.send(SERVER, new Release(lock.lock));
        }
        return false;
    }

    private void think(Env env, LockUser user) {
        user.state = LockUser.State.THINKING;
        env.setTimer(Duration.ofMillis(env.random().nextLong(MIN_THINK_MILLIS, MAX_THINK_MILLIS + 1)),
                new UserTimer(user.id));
    }

    /** How many lock users have done all their rounds. */
    @Exposed
    public int finishedUsers() {
        return (int) users.stream().filter(u -> u.state == LockUser.State.DONE).count();
    }
}
