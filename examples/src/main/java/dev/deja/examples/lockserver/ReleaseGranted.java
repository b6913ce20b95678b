package dev.deja.examples.lockserver;

/** The server accepted a {@link Release}: the client no longer holds the lock. */
public record ReleaseGranted(int lock) {
}
