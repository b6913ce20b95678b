package dev.deja.examples.lockserver;

/**
 * A client's state for one lock: the mode it caches the lock in (null when it does not hold it), how its lock
 * users use it, and the flags of the transactions in flight with the server.
 */
final class CachedLock {
    final int lock;
    /** The mode the server granted, or null when this client does not hold the lock. */
    LockMode cached;
    /** How many of this client's lock users hold the lock now, all in {@link #localMode}. */
    int localUsers;
    LockMode localMode;
    /** An {@link Acquire} was sent and its {@link Grant} has not arrived. */
    boolean acquiring;
    /** A {@link Release} was sent and its answer has not arrived (the paper's {@code releasepending}). */
    boolean releasePending;
    /** A {@link Revoke} arrived; the revoking task gives the lock back once no user holds it and no release is pending. */
    boolean revokePending;
    /** A release was denied, so a revoke is on its way: nobody may use or release the lock until it came. */
    boolean revokeExpected;
    /** How many releases of this lock the server denied so far. */
    long releaseDenials;

    CachedLock(int lock) {
        this.lock = lock;
    }

    /** Whether the revoking task can give the lock back now. */
    boolean revocable() {
        return revokePending && cached != null && localUsers == 0 && !releasePending;
    }
}
