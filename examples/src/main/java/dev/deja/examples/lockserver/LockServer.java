package dev.deja.examples.lockserver;

import dev.deja.node.Env;
import dev.deja.node.Exposed;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lock server, after Boxwood's lock service as checked in the WiDS Checker paper (section 4.2).
 *
 * <p>Requests for a lock are served first come, first served: the server grants the oldest waiting request as
 * long as it is compatible with the lock's holders (shared with shared). When the oldest is not, it sends a
 * {@link Revoke} to every holder and puts the lock into its {@code pendingQueue}, the locks whose revoke
 * transactions are in flight; once every holder answered with {@link RevokeDone} the lock leaves the queue and
 * the waiting requests are granted. A {@link Release} a client sends on its own is always denied while its lock
 * is in the pending queue: the revoke on its way to that client will take the lock back instead.
 *
 * <p>The server trusts its clients and the network: no message is lost (deploy and simulate it without loss),
 * and no client crashes. It behaves the same with and without the bug, which is in {@link LockClient}. In an
 * example cluster it runs inside {@link LockNode} as the node called {@code server}.
 */
public final class LockServer implements Node {
    final Map<Integer, ServerLock> locks = new TreeMap<>();
    /** The locks whose revoke transactions are in flight, oldest first (the paper's {@code pendingqueue}). */
    final LinkedHashSet<Integer> pendingQueue = new LinkedHashSet<>();

    public LockServer() {
    }

    @Override
    public void onStart(Env env) {
        LockClient.parseBug(env.args());
        for (int lock = 0; lock < LockClient.LOCKS; lock++) {
            locks.put(lock, new ServerLock(lock));
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case Acquire acquire -> {
                ServerLock lock = lock(env, from, acquire.lock());
                if (lock != null) {
                    lock.waiters.addLast(new ServerLock.Request(from, acquire.mode()));
                    serve(env, lock);
                }
            }
            case RevokeDone done -> {
                ServerLock lock = lock(env, from, done.lock());
                if (lock != null) {
                    onRevokeDone(env, from, lock);
                }
            }
            case Release release -> {
                ServerLock lock = lock(env, from, release.lock());
                if (lock != null) {
                    onRelease(env, from, lock);
                }
            }
            default -> env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    private ServerLock lock(Env env, NodeId from, int number) {
        ServerLock lock = locks.get(number);
        if (lock == null) {
            env.log("ignored a message about unknown lock " + number + " from " + from);
        }
        return lock;
    }

    private void onRevokeDone(Env env, NodeId from, ServerLock lock) {
        if (!lock.revoking.remove(from)) {
            env.log("ignored a RevokeDone for lock " + lock.lock + " from " + from + ", which was not asked");
            return;
        }
        lock.holders.remove(from);
        if (lock.revoking.isEmpty()) {
            pendingQueue.remove(lock.lock);
            serve(env, lock);
        }
    }

    private void onRelease(Env env, NodeId from, ServerLock lock) {
        if (pendingQueue.contains(lock.lock)) {
            env.send(from, new ReleaseDenied(lock.lock));
            return;
        }
        if (lock.holders.remove(from) == null) {
            env.log("client " + from + " released lock " + lock.lock + ", which it does not hold");
        }
        env.send(from, new ReleaseGranted(lock.lock));
        serve(env, lock);
    }

    /**
     * Grants the waiting requests of {@code lock} in order while they are compatible with its holders; at the
     * first that is not, revokes the lock from every holder and puts it into the pending queue.
     */
    private void serve(Env env, ServerLock lock) {
        if (!lock.revoking.isEmpty()) {
            return; // a revoke transaction is in flight: nothing moves until it completes
        }
        while (!lock.waiters.isEmpty()) {
            ServerLock.Request head = lock.waiters.peekFirst();
            if (!lock.compatible(head.mode())) {
                lock.revoking.addAll(lock.holders.keySet());
                pendingQueue.add(lock.lock);
                for (NodeId holder : lock.revoking) {
                    env.send(holder, new Revoke(lock.lock));
                }
                return;
            }
            lock.waiters.removeFirst();
            lock.holders.put(head.client(), head.mode());
            env.send(head.client(), new Grant(lock.lock, head.mode()));
        }
    }

    /** How many locks are in the pending queue. */
    @Exposed
    public int pendingSize() {
        return pendingQueue.size();
    }

    /** The locks in the pending queue, oldest first. */
    @Exposed
    public List<Integer> pendingLocks() {
        return new ArrayList<>(pendingQueue);
    }
}
