package dev.deja.examples.lockserver;

/** The server takes back a cached lock because another client waits for it; answered with {@link RevokeDone}. */
public record Revoke(int lock) {
}
