package dev.deja.examples.testing;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Runs an example the way {@code deja simulate} and {@code deja replay} do, for the examples' tests: the simulator
 * (seeded {@link dev.deja.sim.ChoiceSource}) records the run into a trace, and the replayer runs the recorded
 * nodes again, handing each one to an {@link Observer} after every handler call. A replay that diverges fails the
 * test. Every failure can name the {@code deja simulate} command that makes the same run.
 */
public final class SimulatedRuns {
    private SimulatedRuns() {
    }

    /** Sees a recorded node right after it ran a handler ({@code onStart}, {@code onMessage}, {@code onTimer}). */
    @FunctionalInterface
    public interface Observer {
        /**
         * @param node     the node that ran the handler
         * @param instance its object, as the handler left it (read it, never change it)
         * @param atMillis the node's clock when the handler began
         */
        void afterHandler(NodeId node, Node instance, long atMillis);
    }

    /**
     * One run.
     *
     * @param trace   the recorded trace
     * @param result  what the simulator reports
     * @param command the {@code deja simulate} command line that makes the same trace
     * @param output  the lines every node (the unrecorded workload driver included) wrote with {@code Env.log}
     * @param nodes   every recorded node's object as the run left it, by id
     */
    public record Run(Path trace, SimulationResult result, String command, List<String> output, Map<NodeId, Node> nodes) {
    }

    /**
     * Simulates {@code example} with {@code nodes} cluster nodes, {@code bug} and {@code seed}, the settings
     * changed by {@code faults}, into a new directory under {@code directory}; then replays it for {@code observer}.
     */
    public static Run run(Path directory, Example example, int nodes, Optional<String> bug, long seed,
                          UnaryOperator<SimulationSettings.Builder> faults, Observer observer) {
        return run(directory, example, nodes, bug, Map.of(), seed, faults, observer);
    }

    /** The same with {@code nodeArgs} given to every cluster node (as {@code --arg}). */
    public static Run run(Path directory, Example example, int nodes, Optional<String> bug,
                          Map<String, String> nodeArgs, long seed, UnaryOperator<SimulationSettings.Builder> faults,
                          Observer observer) {
        SimulationSettings settings = faults.apply(ExampleSimulation.settings(example, nodes, bug, nodeArgs).seed(seed))
                .build();
        String command = ExampleSimulation.commandLine(example, bug, settings, "t");
        Path trace = directory.resolve(example.name() + "-" + bug.orElse("clean") + "-seed" + seed + "-"
                + Integer.toHexString(settings.hashCode()));
        List<String> output = new ArrayList<>();
        SimulationResult result = Simulator.run(settings, trace, Simulator.Options.of(settings)
                .withNodeOutput(output::add).withCommand(command));
        Map<NodeId, Node> last = new TreeMap<>();
        ReplayResult replay = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (event.startedHandler()) {
                        NodeId id = event.entry().node();
                        state.node(id).ifPresent(instance -> {
                            last.put(id, instance);
                            observer.afterHandler(id, instance, event.entry().atMillis());
                        });
                    }
                }));
        if (!replay.divergences().isEmpty()) {
            throw new AssertionError("the replay of " + command + " diverged: " + replay.divergences().getFirst()
                    .describe());
        }
        return new Run(trace, result, command, List.copyOf(output), last);
    }
}
