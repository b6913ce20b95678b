package dev.deja.examples.lockserver;

/** A client asks the server for {@code lock} in {@code mode}; answered with {@link Grant} when it is its turn. */
public record Acquire(int lock, LockMode mode) {
}
