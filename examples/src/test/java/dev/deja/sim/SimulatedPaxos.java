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

/** Simulated Paxos runs for tests, and a ground truth for them read from the replayed nodes' own fields. */
final class SimulatedPaxos {
    private static final Field ACCEPTED_ROUND = field("acceptedRound");
    private static final Field ACCEPTED_VALUE = field("acceptedValue");

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
     * round (the paper's "decision"); Paxos is broken when there are two. Fails on a divergence.
     */
    static List<String> chosenValues(Path trace, int clusterSize) {
        int majority = clusterSize / 2 + 1;
        Map<NodeId, Accepted> accepted = new HashMap<>();
        List<String> chosen = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> state.node(event.entry().node()).ifPresent(node -> {
                    if (!(node instanceof PaxosNode)) {
                        return;
                    }
                    Accepted now = read(node);
                    if (now.round() > 0 && !now.equals(accepted.put(event.entry().node(), now))) {
                        long same = accepted.values().stream().filter(now::equals).count();
                        if (same >= majority && !chosen.contains(now.value())) {
                            chosen.add(now.value());
                        }
                    }
                })));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("replay of the simulated trace " + trace + " diverged: "
                    + result.divergences().getFirst().describe());
        }
        return chosen;
    }

    private static Accepted read(Node node) {
        try {
            return new Accepted((long) ACCEPTED_ROUND.get(node), (String) ACCEPTED_VALUE.get(node));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
