package dev.deja.examples.paxos;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The paper's two Paxos predicates, evaluated after every handler: GlobalConsistency (one value is ever
 * accepted by a majority, and every node learns that value) and AcceptedRoundIncreasing.
 *
 * <p>It reads {@link PaxosNode}'s private fields by name, as Deja's checker will.
 */
final class PaxosInvariants {
    enum Kind { DISAGREEMENT, ACCEPTED_ROUND_DECREASED }

    record Violation(Kind kind, long atMillis, String description) {
    }

    private record AcceptedPair(long round, String value) {
    }

    private static final Field ACCEPTED_ROUND = field("acceptedRound");
    private static final Field ACCEPTED_VALUE = field("acceptedValue");
    private static final Field DECIDED_VALUE = field("decidedValue");

    private final int majority;
    private final Map<NodeId, AcceptedPair> accepted = new TreeMap<>();
    private final Map<NodeId, String> learned = new TreeMap<>();
    private final Set<String> chosenValues = new LinkedHashSet<>();
    private final List<Violation> violations = new ArrayList<>();

    PaxosInvariants(int nodeCount) {
        this.majority = nodeCount / 2 + 1;
    }

    /** Re-evaluates the predicates after {@code id} ran a handler at virtual time {@code nowMillis}. */
    void check(NodeId id, Node node, long nowMillis) {
        if (!(node instanceof PaxosNode paxos)) {
            return;
        }
        AcceptedPair pair = new AcceptedPair((long) read(ACCEPTED_ROUND, paxos), (String) read(ACCEPTED_VALUE, paxos));
        AcceptedPair before = accepted.put(id, pair);
        if (before != null && pair.round() < before.round()) {
            violations.add(new Violation(Kind.ACCEPTED_ROUND_DECREASED, nowMillis,
                    id + " accepted round " + pair.round() + " after round " + before.round()));
        }
        if (pair.round() > 0 && !pair.equals(before)) {
            long sameCount = accepted.values().stream().filter(pair::equals).count();
            if (sameCount >= majority && chosenValues.add(pair.value()) && chosenValues.size() > 1) {
                violations.add(new Violation(Kind.DISAGREEMENT, nowMillis, "a majority accepted " + pair.value()
                        + " in round " + pair.round() + " after a majority accepted " + chosenValues.iterator().next()));
            }
        }
        String decided = (String) read(DECIDED_VALUE, paxos);
        if (decided != null && !decided.equals(learned.get(id))) {
            learned.values().stream().filter(value -> !value.equals(decided)).findFirst().ifPresent(other ->
                    violations.add(new Violation(Kind.DISAGREEMENT, nowMillis,
                            id + " learned " + decided + " but a node learned " + other)));
            learned.putIfAbsent(id, decided);
        }
    }

    List<Violation> violations() {
        return violations;
    }

    /** The first value each node learned. */
    Map<NodeId, String> learned() {
        return learned;
    }

    /** PaxosNode's private field {@code name}, made readable. */
    static Field field(String name) {
        try {
            Field field = PaxosNode.class.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new AssertionError("PaxosNode lost its field '" + name + "' that checkers read", e);
        }
    }

    static Object read(Field field, PaxosNode node) {
        try {
            return field.get(node);
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }
}
