package dev.deja.sim;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** Simulated Paxos runs for tests, and a ground truth for them read from the replayed nodes' own fields. */
final class SimulatedPaxos {
    private static final Field ACCEPTED_ROUND = field("acceptedRound");
    private static final Field ACCEPTED_VALUE = field("acceptedValue");
    private static final Field OTHER_SLOTS = field("otherSlots");

    private record Accepted(long round, String value) {
    }

    private static Field field(String name) {
        try {
            Field field = PaxosNode.class.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SimulatedPaxos() {
    }

    /** {@code nodes} Paxos processes and the client, with the given bug (or none) and faults. */
    static SimulationSettings.Builder settings(int nodes, long seed, Optional<String> bug) {
        return ExampleSimulation.settings(new PaxosExample(), nodes, bug).seed(seed);
    }

    /**
     * Replays {@code trace} and returns, in order, every value that a majority of the cluster accepted in one
     * round of slot 0 (the paper's "decision"); Paxos is broken when there are two. Fails on a divergence.
     */
    static List<String> chosenValues(Path trace, int clusterSize) {
        return chosenValuesBySlot(trace, clusterSize).getOrDefault(0, List.of());
    }

    /** The same for every slot of nodes that run several consensus instances, by slot. */
    @SuppressWarnings("unchecked")
    static Map<Integer, List<String>> chosenValuesBySlot(Path trace, int clusterSize) {
        int majority = clusterSize / 2 + 1;
        Map<Integer, Map<NodeId, Accepted>> accepted = new TreeMap<>();
        Map<Integer, List<String>> chosen = new TreeMap<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> state.node(event.entry().node()).ifPresent(node -> {
                    if (!(node instanceof PaxosNode)) {
                        return;
                    }
                    Map<Integer, PaxosNode> instances = new TreeMap<>((Map<Integer, PaxosNode>) get(OTHER_SLOTS, node));
                    instances.put(0, (PaxosNode) node);
                    instances.forEach((slot, instance) -> {
                        Accepted now = read(instance);
                        Map<NodeId, Accepted> ofSlot = accepted.computeIfAbsent(slot, s -> new HashMap<>());
                        if (now.round() > 0 && !now.equals(ofSlot.put(event.entry().node(), now))) {
                            long same = ofSlot.values().stream().filter(now::equals).count();
                            List<String> values = chosen.computeIfAbsent(slot, s -> new ArrayList<>());
                            if (same >= majority && !values.contains(now.value())) {
                                values.add(now.value());
                            }
                        }
                    });
                })));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("replay of the simulated trace " + trace + " diverged: "
                    + result.divergences().getFirst().describe());
        }
        return chosen;
    }

    private static Object get(Field field, Object node) {
        try {
            return field.get(node);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Accepted read(Node node) {
        try {
            return new Accepted((long) ACCEPTED_ROUND.get(node), (String) ACCEPTED_VALUE.get(node));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
