package dev.deja.view.internal;

import dev.deja.examples.paxos.PaxosClient;
import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Path;
import java.util.Map;

/** Real traces for viewer tests, made with the deterministic simulator (the same seed gives the same bytes). */
final class SimulatedRuns {
    private SimulatedRuns() {
    }

    /**
     * A Paxos run of {@code nodes} processes and the workload client, with 20% message loss, reordering
     * delays and occasional crashes (so lanes have incarnations), written to {@code trace}.
     */
    static Path paxos(Path trace, int nodes, long seed) {
        SimulationSettings.Builder settings = SimulationSettings.builder().seed(seed).dropProbability(0.2)
                .delayMillis(1, 60).crashRate(0.01).restartDelayMillis(200)
                .driver(new NodeId("client"), PaxosClient.class.getName());
        for (int i = 1; i <= nodes; i++) {
            settings.node(new NodeId("n" + i), PaxosNode.class.getName(), Map.of());
        }
        SimulationSettings built = settings.build();
        Simulator.run(built, trace, Simulator.Options.of(built).withClassLoader(SimulatedRuns.class.getClassLoader()));
        return trace;
    }

    /** The command that makes the same trace, for failure messages. */
    static String command(int nodes, long seed) {
        return "./deja simulate paxos --nodes " + nodes + " --seed " + seed
                + " --drop 0.2 --delay 1ms..60ms --crash-rate 0.01 --restart-delay 200ms --out t";
    }
}
