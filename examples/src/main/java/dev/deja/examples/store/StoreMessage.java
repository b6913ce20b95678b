package dev.deja.examples.store;

import dev.deja.node.NodeId;

/**
 * Every message of the replicated store. The holder of a replica talks to the owner of the object's index; the
 * owner talks to holders; every node talks to every node for membership.
 */
public sealed interface StoreMessage {
    /** Membership: sent to every peer each heartbeat interval, with the sender's incarnation and replica count. */
    record Heartbeat(int incarnation, int load) implements StoreMessage {
    }

    /** The client writes an object; a node that is not the owner forwards it ({@code hops} counts forwards). */
    record Put(String objectId, String data, NodeId replyTo, int hops) implements StoreMessage {
    }

    /** The owner tells the client that the object has its replicas. */
    record PutDone(String objectId) implements StoreMessage {
    }

    /**
     * Makes the receiver a holder of a replica. {@code movedFrom} names the node that moves its own replica here
     * without asking the owner (only with the {@code balance-race} bug); otherwise null.
     */
    record Store(String objectId, String data, NodeId movedFrom) implements StoreMessage {
    }

    /**
     * A holder tells the owner (as it sees the ring) that it holds a replica. {@code version} grows with every
     * {@code Publish} and {@link Unpublish} a node sends (incarnation in the high half), so the owner can ignore one
     * that the network delivered after a later one.
     */
    record Publish(String objectId, long version) implements StoreMessage {
    }

    /** The owner, in incarnation {@code incarnation}, has the sender of the {@link Publish} in its index. */
    record PublishAck(String objectId, int incarnation) implements StoreMessage {
    }

    /** The owner asks a holder to copy its replica to {@code target} (repair, or an approved move). */
    record Copy(String objectId, NodeId target) implements StoreMessage {
    }

    /** The owner tells a holder to delete its replica, which the index no longer lists; answered by {@link Unpublish}. */
    record Drop(String objectId) implements StoreMessage {
    }

    /** Load balancing: a holder asks the owner to move its replica to {@code target}. */
    record MoveRequest(String objectId, NodeId target) implements StoreMessage {
    }

    /** The owner refuses a {@link MoveRequest} (the index is changing, or the target already holds it). */
    record MoveRejected(String objectId) implements StoreMessage {
    }

    /** {@code balance-race} only: the target of an unapproved move already held the object. */
    record MoveRefused(String objectId) implements StoreMessage {
    }

    /** {@code balance-race} only: the target of an unapproved move is indexed; the source may delete its replica. */
    record MoveDone(String objectId) implements StoreMessage {
    }

    /**
     * A node tells the owner it no longer holds a replica: after a {@link Drop}, or ({@code balance-race}) after
     * moving it away. Versioned like {@link Publish}.
     */
    record Unpublish(String objectId, long version) implements StoreMessage {
    }
}
