package dev.deja.examples.lockserver;

/**
 * The workload driver tells a client to start its lock users, once every node is up; the client reports
 * {@link ClientStatus} to the driver when its last user finishes.
 */
public record Start() {
}
