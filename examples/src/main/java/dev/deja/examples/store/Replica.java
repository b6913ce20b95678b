package dev.deja.examples.store;

import dev.deja.node.NodeId;

/**
 * A replica a node holds. Its data lives in {@link dev.deja.node.Storage} and survives crashes; this in-memory
 * record says whether the owner of the object's index has acknowledged it.
 */
public final class Replica {
    final String objectId;
    /** The object's position on the ring. */
    final long key;
    /** The owner that acknowledged this replica's {@code Publish}, or null while it is not acknowledged. */
    NodeId publishedTo;
    /** The incarnation of {@link #publishedTo} that acknowledged: a later one has lost its index. */
    int publishedIncarnation;
    /** When the last {@code Publish} went out, for retries. */
    long publishedAtMillis = Long.MIN_VALUE / 2;

    Replica(String objectId) {
        this.objectId = objectId;
        this.key = Ring.position(objectId);
    }

    @Override
    public String toString() {
        return "Replica[" + objectId + ", publishedTo=" + publishedTo + "]";
    }
}
