package dev.deja.explore.counter;

import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import java.util.Map;

/**
 * {@code servers} {@link CounterServer}s {@code n1...} and {@code writers} {@link CounterWriter}s after them, writer
 * {@code w} writing to server {@code w mod servers}; 1 ms delays. Writers of different servers are independent of
 * each other, which partial-order reduction exploits and a plain search does not.
 */
public final class Counter {
    /** The predicate script: no update is lost. */
    public static final String SCRIPT = "src/test/resources/counter.py";

    private Counter() {
    }

    public static SimulationSettings settings(int servers, int writers) {
        SimulationSettings.Builder builder = SimulationSettings.builder();
        for (int s = 0; s < servers; s++) {
            builder.node(new NodeId("n" + (s + 1)), CounterServer.class.getName(), Map.of());
        }
        for (int w = 0; w < writers; w++) {
            builder.node(new NodeId("n" + (servers + w + 1)), CounterWriter.class.getName(),
                    Map.of("server", "n" + (w % servers + 1)));
        }
        return builder.seed(1).delayMillis(1, 1).maxVirtualMillis(10_000).stop(SimulationSettings.Stop.AT_LIMIT).build();
    }
}
