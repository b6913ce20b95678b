package dev.deja.examples.paxos;

/** Step 3: a leader submits {@code value} for round {@code round} to every agent. */
public record Begin(int slot, long round, String value) {
}
