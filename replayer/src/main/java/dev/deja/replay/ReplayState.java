package dev.deja.replay;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The replayed nodes as they are now: the live {@link Node} objects a listener may inspect (never modify).
 * Valid only during the listener call that received it, on the replay thread.
 */
public interface ReplayState {
    /** Every node currently replayed, by id; a node that diverged or has not started yet is absent. */
    SortedMap<NodeId, Node> nodes();

    /** The live object of {@code node}, if it is currently replayed. */
    Optional<Node> node(NodeId node);

    /** The incarnation {@code node} is in (1 for the first start), or 0 if it has not started. */
    int incarnation(NodeId node);
}
