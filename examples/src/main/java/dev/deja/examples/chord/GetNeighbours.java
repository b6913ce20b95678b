package dev.deja.examples.chord;

/** Stabilize: asks a node for its predecessor and successor, answered with {@link Neighbours}. */
public record GetNeighbours() {
}
