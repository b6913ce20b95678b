package dev.deja.examples.lockserver;

/**
 * The workload driver asks a client how far its lock users are; the client answers {@link ClientStatus} now and
 * again when its last user finishes.
 */
public record Status() {
}
