package dev.deja.examples.chord;

import dev.deja.node.NodeId;

/**
 * A lookup routed along the ring for the node that succeeds {@code key}; the node that knows it answers
 * {@code origin} directly with {@link FoundSuccessor}. {@code hops} counts forwards, to drop looping lookups.
 */
public record FindSuccessor(int key, NodeId origin, int hops) {
}
