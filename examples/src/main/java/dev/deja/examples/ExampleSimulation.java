package dev.deja.examples;

import dev.deja.node.NodeId;
import dev.deja.sim.SimulationSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How to run one example in the simulator: its cluster nodes with the bug switch, and its workload client as the
 * unrecorded driver, exactly as {@link ExampleDeployment} deploys it. {@code deja simulate}, the tests and the
 * benchmarks all start from here, so a seed means the same run everywhere.
 *
 * <pre>{@code
 * SimulationSettings settings = ExampleSimulation.settings(Examples.byName("paxos").orElseThrow(), 7,
 *         Optional.of("latest-response")).seed(22).dropProbability(0.3).delayMillis(1, 100).build();
 * Simulator.run(settings, trace);
 * }</pre>
 */
public final class ExampleSimulation {
    /** Most nodes a simulation runs. */
    public static final int MAX_NODES = 1000;

    /** The id the workload client runs under, in deployments and simulations alike. */
    public static final NodeId DRIVER_ID = new NodeId("client");

    private ExampleSimulation() {
    }

    /**
     * A settings builder holding the example's {@code nodes} cluster nodes (with {@code bug} switched on) and its
     * workload driver; seed, faults and limits are left at the builder's defaults for the caller to set.
     *
     * @throws IllegalArgumentException if {@code nodes} is out of range or the example has no such bug
     */
    public static SimulationSettings.Builder settings(Example example, int nodes, Optional<String> bug) {
        return settings(example, nodes, bug, Map.of());
    }

    /** The same with {@code extraArgs} given to every cluster node besides the bug switch (as {@code --arg}). */
    public static SimulationSettings.Builder settings(Example example, int nodes, Optional<String> bug,
                                                      Map<String, String> extraArgs) {
        if (extraArgs.containsKey("bug")) {
            throw new IllegalArgumentException("the bug is switched with --bug, not --arg bug=...");
        }
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("--nodes must be between 1 and " + MAX_NODES + ", was " + nodes);
        }
        Map<String, String> args = new LinkedHashMap<>(example.nodeArgs(bug));
        args.putAll(extraArgs);
        SimulationSettings.Builder builder = SimulationSettings.builder();
        for (NodeId id : example.nodeIds(nodes)) {
            builder.node(id, example.nodeClass().getName(), args);
        }
        example.driverClass().ifPresent(type -> builder.driver(DRIVER_ID, type.getName()));
        return builder;
    }

    /**
     * The {@code deja simulate} command line that makes the run {@code settings} describe again, for messages that
     * must say how to reproduce a failure; {@code settings} must have been built from {@link #settings} with the
     * same example and bug.
     */
    public static String commandLine(Example example, Optional<String> bug, SimulationSettings settings, String out) {
        StringBuilder command = new StringBuilder("./deja simulate ").append(example.name())
                .append(" --nodes ").append(settings.nodes().size()).append(" --seed ").append(settings.seed());
        bug.ifPresent(name -> command.append(" --bug ").append(name));
        new TreeMap<>(settings.nodes().values().iterator().next().args()).forEach((key, value) -> {
            if (!key.equals("bug")) {
                command.append(" --arg ").append(key).append('=').append(value);
            }
        });
        if (settings.dropProbability() > 0) {
            command.append(" --drop ").append(settings.dropProbability());
        }
        if (settings.duplicateProbability() > 0) {
            command.append(" --dup ").append(settings.duplicateProbability());
        }
        command.append(" --delay ").append(settings.minDelayMillis()).append("ms..").append(settings.maxDelayMillis())
                .append("ms");
        if (settings.crashRate() > 0) {
            command.append(" --crash-rate ").append(settings.crashRate()).append(" --restart-delay ")
                    .append(settings.restartDelayMillis()).append("ms");
        }
        if (settings.clockSkewMillis() > 0) {
            command.append(" --clock-skew ").append(settings.clockSkewMillis()).append("ms");
        }
        settings.partitions().forEach(partition -> command.append(" --partition '").append(partition).append('\''));
        if (settings.maxSteps() != Long.MAX_VALUE) {
            command.append(" --steps ").append(settings.maxSteps());
        }
        if (settings.maxVirtualMillis() != SimulationSettings.UNLIMITED_VIRTUAL_MILLIS) {
            command.append(" --virtual-time ").append(settings.maxVirtualMillis()).append("ms");
        }
        if (settings.stop() == SimulationSettings.Stop.AT_LIMIT) {
            command.append(" --until-limit");
        }
        return command.append(" --out ").append(out).toString();
    }

    /** The same with the example's default node count. */
    public static SimulationSettings.Builder settings(Example example, Optional<String> bug) {
        return settings(example, example.defaultNodes(), bug);
    }
}
