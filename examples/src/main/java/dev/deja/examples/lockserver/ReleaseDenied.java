package dev.deja.examples.lockserver;

/** The server refused a {@link Release} because the lock is in its pending queue (a revoke is on its way). */
public record ReleaseDenied(int lock) {
}
