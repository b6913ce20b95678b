package dev.deja.examples.store;

import dev.deja.node.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The consistent-hash ID space: node ids and object ids hash to positions in {@code [0, 2^32)}; an object's owner
 * is the first live node at or after the object's position, going round.
 */
final class Ring {
    private final List<NodeId> byPosition;
    private final long[] positions;

    /** The ring of every node of the cluster, live or not. */
    Ring(Collection<NodeId> nodes) {
        List<NodeId> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparingLong((NodeId id) -> position(id.value())).thenComparing(id -> id));
        byPosition = List.copyOf(sorted);
        positions = byPosition.stream().mapToLong(id -> position(id.value())).toArray();
    }

    /**
     * The position of a name: FNV-1a over its UTF-8 bytes, then the MurmurHash3 finalizer so that similar names
     * (n1, n2, ...) spread over the ring; the top 32 bits.
     */
    static long position(String name) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        hash ^= hash >>> 33;
        hash *= 0xff51afd7ed558ccdL;
        hash ^= hash >>> 33;
        hash *= 0xc4ceb9fe1a85ec53L;
        hash ^= hash >>> 33;
        return hash >>> 32;
    }

    /**
     * The first {@code count} live nodes at or after {@code key}, going round: the first is the owner, and the
     * whole list is where the replicas of a new object go. Fewer when fewer nodes are live.
     */
    List<NodeId> successors(long key, Set<NodeId> live, int count) {
        int start = 0;
        while (start < positions.length && positions[start] < key) {
            start++;
        }
        List<NodeId> out = new ArrayList<>(count);
        for (int i = 0; i < byPosition.size() && out.size() < count; i++) {
            NodeId node = byPosition.get((start + i) % byPosition.size());
            if (live.contains(node)) {
                out.add(node);
            }
        }
        return out;
    }

    /** The owner of {@code key} among the live nodes; null when none is live. */
    NodeId owner(long key, Set<NodeId> live) {
        List<NodeId> first = successors(key, live, 1);
        return first.isEmpty() ? null : first.getFirst();
    }
}
