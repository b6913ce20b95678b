package dev.deja.examples.chord;

import dev.deja.node.NodeId;

/** The answer to {@link GetNeighbours}: the sender's predecessor (null if it has none) and successor. */
public record Neighbours(NodeId predecessor, NodeId successor) {
}
