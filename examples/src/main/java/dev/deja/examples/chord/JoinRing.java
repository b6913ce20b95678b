package dev.deja.examples.chord;

import dev.deja.node.NodeId;

/** From the workload: join the ring through {@code bootstrap}; the bootstrap node itself creates the ring. */
public record JoinRing(NodeId bootstrap) {
}
