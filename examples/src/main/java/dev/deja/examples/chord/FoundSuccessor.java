package dev.deja.examples.chord;

import dev.deja.node.NodeId;

/** The answer to a {@link FindSuccessor}: {@code successor} is the first node at or after {@code key}. */
public record FoundSuccessor(int key, NodeId successor, int hops) {
}
