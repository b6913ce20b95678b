package dev.deja.examples.paxos;

/** A client asks a node to propose {@code value} as its own value. */
public record Propose(String value) {
}
