package dev.deja.examples.lockserver;

/** The server gives a client {@code lock} in {@code mode}; the client caches it until it releases or is revoked. */
public record Grant(int lock, LockMode mode) {
}
