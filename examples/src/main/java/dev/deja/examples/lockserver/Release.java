package dev.deja.examples.lockserver;

/**
 * A client gives back a cached shared lock on its own, to acquire it again in exclusive mode; answered with
 * {@link ReleaseGranted}, or {@link ReleaseDenied} while the lock is in the server's pending queue.
 */
public record Release(int lock) {
}
