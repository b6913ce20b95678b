package dev.deja.examples.store;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The store's three properties (WiDS Checker paper, section 4.3) computed in Java from the nodes' live state: the
 * same judgement {@code scripts/store.py} makes, written independently, for tests that need an oracle without
 * Python.
 *
 * <p>The true membership is the set of nodes that more than half of the nodes' views hold live; only replicas on
 * members count, and an object's owner is its successor among the members.
 *
 * @param members    the nodes a majority of views hold live
 * @param replicas   every object with a replica on a member, to the members holding one
 * @param ownership  objects whose owner holds no index entry, to a description
 * @param references objects whose owner's entry lists a holder without a replica (dangling) or misses a member
 *                   that holds one (orphan), to a description
 * @param degree     objects without exactly {@link StoreNode#DEGREE} replicas, to a description
 * @param membershipChangedAtMillis the latest time (by the nodes' clocks) a node's view changed or a node started
 */
public record StoreAudit(Set<NodeId> members, Map<String, Set<NodeId>> replicas, Map<String, String> ownership,
                         Map<String, String> references, Map<String, String> degree, long membershipChangedAtMillis) {
    public StoreAudit {
        members = Collections.unmodifiableSet(new TreeSet<>(members));
        replicas = Collections.unmodifiableMap(new TreeMap<>(replicas));
        ownership = Collections.unmodifiableMap(new TreeMap<>(ownership));
        references = Collections.unmodifiableMap(new TreeMap<>(references));
        degree = Collections.unmodifiableMap(new TreeMap<>(degree));
    }

    /**
     * The part of one node's state the audit reads, copied: equal snapshots give equal audits, so a caller that
     * audits after every event can skip events that changed none of it.
     *
     * @param view                 the nodes it holds live
     * @param viewChangedAtMillis  when its view last changed (its start counts), by its clock
     * @param replicas             the objects it holds replicas of
     * @param index                the holders of each object it indexes
     */
    public record NodeState(Set<NodeId> view, long viewChangedAtMillis, Set<String> replicas,
                            Map<String, List<NodeId>> index) {
        public NodeState {
            view = Set.copyOf(view);
            replicas = Set.copyOf(replicas);
            index = Map.copyOf(index);
        }

        /** The state of {@code node}, if it is a {@link StoreNode}. */
        public static Optional<NodeState> of(Node node) {
            return node instanceof StoreNode store ? Optional.of(new NodeState(store.view(),
                    store.viewChangedAt(), store.replicaIds(), store.indexHolders())) : Optional.empty();
        }
    }

    /** Audits the live nodes of a store cluster; nodes that are not {@link StoreNode}s are ignored. */
    public static StoreAudit of(Map<NodeId, ? extends Node> nodes) {
        Map<NodeId, NodeState> states = new TreeMap<>();
        nodes.forEach((id, node) -> NodeState.of(node).ifPresent(state -> states.put(id, state)));
        return ofStates(states);
    }

    /** Audits a store cluster from its nodes' states. */
    public static StoreAudit ofStates(Map<NodeId, NodeState> store) {
        Map<NodeId, Integer> votes = new TreeMap<>();
        for (NodeState node : store.values()) {
            node.view().forEach(member -> votes.merge(member, 1, Integer::sum));
        }
        Set<NodeId> members = new TreeSet<>();
        votes.forEach((id, count) -> {
            if (2 * count > store.size() && store.containsKey(id)) {
                members.add(id);
            }
        });
        Map<String, Set<NodeId>> replicas = new TreeMap<>();
        for (NodeId member : members) {
            for (String objectId : store.get(member).replicas()) {
                replicas.computeIfAbsent(objectId, id -> new TreeSet<>()).add(member);
            }
        }
        Ring ring = new Ring(store.keySet());
        Map<String, String> ownership = new TreeMap<>();
        Map<String, String> references = new TreeMap<>();
        Map<String, String> degree = new TreeMap<>();
        replicas.forEach((objectId, holders) -> {
            NodeId owner = ring.owner(Ring.position(objectId), members);
            List<NodeId> indexed = store.get(owner).index().get(objectId);
            if (indexed == null) {
                ownership.put(objectId, objectId + ": owner " + owner + " has no index entry");
                references.put(objectId, objectId + ": orphan replicas on " + holders + " (owner " + owner
                        + " has no entry)");
            } else {
                List<NodeId> dangling = new ArrayList<>(indexed);
                dangling.removeAll(holders);
                Set<NodeId> orphans = new TreeSet<>(holders);
                indexed.forEach(orphans::remove);
                if (!dangling.isEmpty() || !orphans.isEmpty()) {
                    references.put(objectId, objectId + ": owner " + owner + " lists " + indexed + ", replicas on "
                            + holders);
                }
            }
            if (holders.size() != StoreNode.DEGREE) {
                degree.put(objectId, objectId + ": " + holders.size() + " replicas on " + holders);
            }
        });
        long membershipChangedAt = store.values().stream().mapToLong(NodeState::viewChangedAtMillis).max().orElse(0);
        return new StoreAudit(members, replicas, ownership, references, degree, membershipChangedAt);
    }

    /** Whether all three properties hold. */
    public boolean clean() {
        return ownership.isEmpty() && references.isEmpty() && degree.isEmpty();
    }

    /** Every problem, one description per line; empty when clean. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        out.addAll(ownership.values());
        out.addAll(references.values());
        out.addAll(degree.values());
        return out;
    }
}
