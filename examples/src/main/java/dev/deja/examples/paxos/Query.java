package dev.deja.examples.paxos;

/** A client asks a node for the decided value; answered with {@link Decided} once the node knows it. */
public record Query() {
}
