package dev.deja.examples.randtree;

import dev.deja.node.NodeId;
import java.util.List;

/**
 * The messages of {@link RandTreeNode}, after the messages of Mace's RandTree. Node sets travel as sorted lists.
 */
public sealed interface TreeMessage {
    /**
     * Asks to join the tree. Sent by {@code source} to a bootstrap or a target, redirected to the root, and
     * forwarded by the root down to a random child while the receiver is full.
     *
     * @param source       the node that wants to join
     * @param redirectedBy the root that forwarded it down the tree, or null when not forwarded by a root
     * @param attempt      the joiner's attempt number, echoed in the {@link JoinReply} so late replies are known
     * @param hops         how often it was redirected or forwarded so far (a request that went round is dropped)
     */
    record Join(NodeId source, NodeId redirectedBy, long attempt, int hops) implements TreeMessage {
        /** The request passed on by one more node. */
        Join next(NodeId redirectedByRoot) {
            return new Join(source, redirectedByRoot, attempt, hops + 1);
        }
    }

    /** How a {@link Join} ended. */
    enum JoinStatus {
        /** The sender took the joiner as a child. */
        ACCEPTED,
        /** The joiner is more eligible (a smaller id) than the root that got the request: it is the root now. */
        ROOT_FORCE,
        /** The joiner is the receiver's own root, so it tried to join its own descendant: it stays the root. */
        LOOP_ERROR
    }

    /**
     * The answer to a {@link Join}.
     *
     * @param root     the root of the tree the joiner is now in
     * @param siblings the joiner's new siblings (the parent's other children); empty unless accepted
     */
    record JoinReply(JoinStatus status, NodeId root, List<NodeId> siblings, long attempt) implements TreeMessage {
    }

    /**
     * From a parent to each child whenever its children change and on every recovery tick: the root and the
     * child's siblings. It is also the parent's heartbeat.
     */
    record UpdateSiblings(NodeId root, List<NodeId> siblings) implements TreeMessage {
    }

    /** From a parent to its children, who pass it on to theirs: the tree has a new root. */
    record NewRoot(NodeId root) implements TreeMessage {
    }

    /** From a child to its parent on every recovery tick: I am still your child. */
    record Heartbeat() implements TreeMessage {
    }

    /** "I am not your child (any more)": drop me from your children. Also a child's answer to {@link Rejoin}. */
    record Remove() implements TreeMessage {
    }

    /** From a (former) parent: I am not your parent any more, join again through {@code via}. */
    record Rejoin(NodeId via) implements TreeMessage {
    }

    /** Sent on recovery ticks to a peer outside the sender's neighbourhood: my root is {@code root}. */
    record Probe(NodeId root) implements TreeMessage {
    }

    /** To a root: there is a more eligible root, {@code root}; join it. */
    record ProbeJoin(NodeId root) implements TreeMessage {
    }

    /** From the workload client: report your view of the tree. */
    record StatusQuery() implements TreeMessage {
    }

    /** A node's view of the tree, for the workload client. */
    record Status(RandTreeNode.JoinState state, NodeId root, NodeId parent, List<NodeId> children,
                  List<NodeId> siblings) implements TreeMessage {
    }
}
