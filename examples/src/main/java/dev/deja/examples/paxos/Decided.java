package dev.deja.examples.paxos;

/** A node tells a client the value it learned was decided. */
public record Decided(String value) {
}
