package dev.deja.examples.lockserver;

import dev.deja.node.Exposed;
import dev.deja.node.NodeId;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The server's view of one lock: who caches it in which mode, who waits for it, whom it is being revoked from. */
final class ServerLock {
    /** A waiting {@link Acquire}. */
    record Request(NodeId client, LockMode mode) {
    }

    final int lock;
    final Map<NodeId, LockMode> holders = new TreeMap<>();
    final ArrayDeque<Request> waiters = new ArrayDeque<>();
    final TreeSet<NodeId> revoking = new TreeSet<>();

    ServerLock(int lock) {
        this.lock = lock;
    }

    /** Whether a request in {@code mode} can be granted next to the current holders. */
    boolean compatible(LockMode mode) {
        return holders.isEmpty() || (mode == LockMode.SHARED && !holders.containsValue(LockMode.EXCLUSIVE));
    }

    /** The clients waiting, oldest first, as {@code c3:EXCLUSIVE}. */
    @Exposed
    public List<String> waiting() {
        return waiters.stream().map(r -> r.client().value() + ":" + r.mode()).toList();
    }
}
