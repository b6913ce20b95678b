package dev.deja.examples.paxos;

/** Step 1: a leader asks every agent to join round {@code round}. */
public record Collect(int slot, long round) {
}
