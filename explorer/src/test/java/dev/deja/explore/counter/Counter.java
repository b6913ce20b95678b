package dev.deja.explore.counter;

import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import java.util.Map;

/** A {@link CounterServer} {@code n1} and {@code writers} {@link CounterWriter}s {@code n2...}, 1 ms delays. */
public final class Counter {
    /** The predicate script: no update is lost. */
    public static final String SCRIPT = "src/test/resources/counter.py";

    private Counter() {
    }

    public static SimulationSettings settings(int writers) {
        SimulationSettings.Builder builder = SimulationSettings.builder()
                .node(new NodeId("n1"), CounterServer.class.getName(), Map.of());
        for (int w = 0; w < writers; w++) {
            builder.node(new NodeId("n" + (w + 2)), CounterWriter.class.getName(), Map.of("server", "n1"));
        }
        return builder.seed(1).delayMillis(1, 1).maxVirtualMillis(10_000).stop(SimulationSettings.Stop.AT_LIMIT).build();
    }
}
