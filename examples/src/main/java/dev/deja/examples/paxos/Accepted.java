package dev.deja.examples.paxos;

/** Step 4: an agent tells every leader that it accepted {@code value} in round {@code round}. */
public record Accepted(int slot, long round, String value) {
}
