package dev.deja.examples.paxos;

/**
 * Step 2: an agent's answer to {@link Collect}: the round and value it last accepted ({@code acceptedRound} 0
 * and {@code acceptedValue} null if it never accepted one).
 */
public record Last(int slot, long round, long acceptedRound, String acceptedValue) {
}
