package dev.deja.examples.store;

import dev.deja.node.NodeId;
import java.util.LinkedHashSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The owner's index entry of one object: which nodes hold its replicas. In memory only, so a crash of the owner
 * loses it and the holders must publish again.
 */
public final class IndexEntry {
    final String objectId;
    /** The object's position on the ring. */
    final long key;
    /** The holders, oldest first: remove-extra-replicas keeps the oldest {@link StoreNode#DEGREE}. */
    final LinkedHashSet<NodeId> holders = new LinkedHashSet<>();
    /** The version of the latest Publish or Unpublish of each node, holder or not: older ones are ignored. */
    final TreeMap<NodeId, Long> versions = new TreeMap<>();
    /** Clients waiting for {@code PutDone}, and the data to place while the put is incomplete. */
    final TreeSet<NodeId> waitingClients = new TreeSet<>();
    String pendingData;
    /** Whether replicas are being placed (an incomplete put, or a holder failed), and when to try again. */
    boolean repairing;
    long nextRepairMillis;
    /** A move the owner approved and has not seen finish, or null. */
    Move move;

    /** An approved move of the replica on {@code source} to {@code target}, forgotten after {@code untilMillis}. */
    record Move(NodeId source, NodeId target, long untilMillis) {
    }

    IndexEntry(String objectId) {
        this.objectId = objectId;
        this.key = Ring.position(objectId);
    }

    /** Records {@code version} from {@code node}; false if a later message of that node was seen already. */
    boolean newer(NodeId node, long version) {
        Long seen = versions.get(node);
        if (seen != null && seen >= version) {
            return false;
        }
        versions.put(node, version);
        return true;
    }

    boolean moving(long nowMillis) {
        return move != null && nowMillis < move.untilMillis();
    }

    @Override
    public String toString() {
        return "IndexEntry[" + objectId + ", holders=" + holders + "]";
    }
}
