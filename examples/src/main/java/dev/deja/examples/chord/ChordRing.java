package dev.deja.examples.chord;

import dev.deja.node.NodeId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The identifier ring: keys, arcs, and the four properties {@code scripts/chord.py} checks, computed in Java
 * from a set of node views so that tests have an oracle independent of the script.
 *
 * <p>Keys are the first four bytes of the SHA-1 of a node's id, modulo {@link #SIZE}; the ring is small so that
 * ten nodes give some node a finger whose start is exactly another node's key (the case the
 * {@code finger-boundary} bug mishandles): {@code n4}'s finger 6 starts at {@code n1}'s key.
 */
public final class ChordRing {
    /** Bits of a key; also the number of fingers per node. */
    public static final int BITS = 12;
    /** Number of keys on the ring. */
    public static final int SIZE = 1 << BITS;

    /** The properties of a stable ring, named as the predicates of {@code scripts/chord.py}. */
    public enum Property {
        /** Every live node has a live predecessor whose successor it is. */
        RING_CONSISTENCY,
        /** Every finger of every live node is the first live node at or after the finger's start. */
        FINGERS_CORRECT,
        /** A node's predecessor is itself exactly when its successor is itself. */
        PRED_SELF_IFF_SUCC_SELF,
        /** No node's successor lies strictly between its predecessor and itself. */
        NODE_ORDERING;

        /** The predicate's name in the script. */
        public String predicate() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One node as the properties see it.
     *
     * @param id          the node
     * @param live        joined and not failed; only live nodes are checked and only they count as targets
     * @param predecessor null when it has none
     * @param successor   the node's successor (itself in a ring of one)
     * @param fingers     finger {@code i} should be the first live node at or after {@code key + 2^i}
     */
    public record View(NodeId id, boolean live, NodeId predecessor, NodeId successor, List<NodeId> fingers) {
        public View {
            Objects.requireNonNull(id, "id");
            fingers = java.util.Collections.unmodifiableList(new ArrayList<>(fingers)); // entries may be null
        }
    }

    // A pure function of the id, cached because the checks ask for the same few keys at every event.
    private static final Map<NodeId, Integer> KEYS = new java.util.concurrent.ConcurrentHashMap<>();

    private ChordRing() {
    }

    /** The key of a node: SHA-1 of its id, first four bytes, modulo {@link #SIZE}. */
    public static int key(NodeId node) {
        return KEYS.computeIfAbsent(node, ChordRing::hash);
    }

    private static int hash(NodeId node) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(node.value().getBytes(StandardCharsets.UTF_8));
            long word = ((digest[0] & 0xFFL) << 24) | ((digest[1] & 0xFFL) << 16) | ((digest[2] & 0xFFL) << 8)
                    | (digest[3] & 0xFFL);
            return (int) (word % SIZE);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }

    /** Where finger {@code index} of the node with key {@code key} starts: {@code key + 2^index} around the ring. */
    public static int fingerStart(int key, int index) {
        return (key + (1 << index)) % SIZE;
    }

    /**
     * Whether {@code x} lies strictly inside the clockwise arc from {@code from} to {@code to}. The arc from a
     * key to itself is the whole ring but that key: in a ring of one, every other node is between a node and
     * its own successor.
     */
    public static boolean openArc(int x, int from, int to) {
        if (from < to) {
            return from < x && x < to;
        }
        return x != from && (x > from || x < to);
    }

    /** Whether {@code x} lies in the clockwise arc {@code (from, to]}; the whole ring when {@code from == to}. */
    public static boolean arcClosedRight(int x, int from, int to) {
        return x == to || openArc(x, from, to);
    }

    /** What is wrong with a set of nodes, per property; an empty list means the property holds. */
    public static Map<Property, List<String>> problems(Collection<View> views) {
        Map<NodeId, View> byId = new TreeMap<>();
        TreeMap<Integer, NodeId> liveByKey = new TreeMap<>();
        for (View view : views) {
            byId.put(view.id(), view);
            if (view.live()) {
                liveByKey.put(key(view.id()), view.id());
            }
        }
        Map<Property, List<String>> problems = new EnumMap<>(Property.class);
        for (Property property : Property.values()) {
            problems.put(property, new ArrayList<>());
        }
        for (View x : byId.values()) {
            if (!x.live()) {
                continue;
            }
            View pred = x.predecessor() == null ? null : byId.get(x.predecessor());
            if (pred == null || !pred.live() || !x.id().equals(pred.successor())) {
                problems.get(Property.RING_CONSISTENCY).add(x.id() + ": predecessor " + x.predecessor()
                        + (pred == null || !pred.live() ? " is not a live node" : " has successor " + pred.successor()));
            }
            boolean predSelf = x.id().equals(x.predecessor());
            boolean succSelf = x.id().equals(x.successor());
            if (predSelf != succSelf) {
                problems.get(Property.PRED_SELF_IFF_SUCC_SELF).add(x.id() + ": predecessor " + x.predecessor()
                        + ", successor " + x.successor());
            }
            View succ = x.successor() == null ? null : byId.get(x.successor());
            if (pred != null && pred.live() && succ != null && succ.live()
                    && openArc(key(succ.id()), key(pred.id()), key(x.id()))) {
                problems.get(Property.NODE_ORDERING).add(x.id() + ": successor " + succ.id()
                        + " lies between predecessor " + pred.id() + " and itself");
            }
            for (int i = 0; i < x.fingers().size(); i++) {
                int start = fingerStart(key(x.id()), i);
                Map.Entry<Integer, NodeId> target = liveByKey.ceilingEntry(start);
                NodeId expected = (target != null ? target : liveByKey.firstEntry()).getValue();
                if (!expected.equals(x.fingers().get(i))) {
                    problems.get(Property.FINGERS_CORRECT).add(x.id() + ": finger " + i + " (start " + start + ") is "
                            + x.fingers().get(i) + ", should be " + expected);
                }
            }
        }
        return problems;
    }
}
