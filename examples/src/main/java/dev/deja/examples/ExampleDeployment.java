package dev.deja.examples;

import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.Deployment;
import dev.deja.runtime.FaultModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run one example on loopback: which nodes, which bug, which faults, for how long. Builds the
 * {@link Deployment.Plan} that {@code deja deploy}, the demo and the tests all use, so they deploy an example
 * the same way.
 *
 * <pre>{@code
 * Deployment.Plan plan = ExampleDeployment.builder(Examples.byName("paxos").orElseThrow())
 *         .nodes(7).bug("latest-response").dropProbability(0.3)
 *         .record(trace).workDirectory(work).build().plan();
 * new Deployment(plan, System.out).run();
 * }</pre>
 */
public record ExampleDeployment(Example example, int nodes, Optional<String> bug, Map<String, String> extraArgs,
                                Map<String, String> clientArgs, FaultModel faults, Duration duration, List<Deployment.NodeAction> actions,
                                Optional<Path> traceDirectory, Path workDirectory, String classpath, String command,
                                List<String> nodeJvmFlags) {
    /** Most nodes a loopback deployment starts. */
    public static final int MAX_NODES = 64;

    public ExampleDeployment {
        Objects.requireNonNull(example, "example");
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new IllegalArgumentException("--nodes must be between 1 and " + MAX_NODES + ", was " + nodes);
        }
        bug.ifPresent(name -> example.nodeArgs(Optional.of(name))); // validates the name with a clear message
        extraArgs = Map.copyOf(extraArgs);
        clientArgs = Map.copyOf(clientArgs);
        actions = List.copyOf(actions);
        nodeJvmFlags = List.copyOf(nodeJvmFlags);
    }

    /** A builder with the example's defaults: its node count, no bug, no faults, 20 s, no recording. */
    public static Builder builder(Example example) {
        return new Builder(example);
    }

    /** The node arguments every cluster node gets: the bug switch plus the extra arguments. */
    public Map<String, String> nodeArgs() {
        Map<String, String> args = new LinkedHashMap<>(example.nodeArgs(bug));
        args.putAll(extraArgs);
        return args;
    }

    /** The settings written into the trace's {@code trace.json} for people reading it later. */
    public Map<String, Object> settings() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("example", example.name());
        settings.put("bug", bug.orElse(null));
        settings.put("nodes", nodes);
        settings.put("args", extraArgs);
        if (!clientArgs.isEmpty()) {
            settings.put("clientArgs", clientArgs);
        }
        settings.put("durationMillis", duration.toMillis());
        settings.put("actions", actions.stream().map(a -> a.kind().name().toLowerCase() + " " + a.node() + "@"
                + a.at().toMillis() + "ms").toList());
        return settings;
    }

    /** The plan, with a free loopback port chosen now for every process (another one if it is taken before use). */
    public Deployment.Plan plan() {
        Map<String, String> args = nodeArgs();
        Map<NodeId, ClusterSpec.Member> members = new LinkedHashMap<>();
        for (NodeId id : example.nodeIds(nodes)) {
            members.put(id, new ClusterSpec.Member("127.0.0.1:" + Deployment.freeLoopbackPort(), example.nodeClass().getName(), args));
        }
        Map<NodeId, ClusterSpec.Member> clients = new LinkedHashMap<>();
        Optional<NodeId> driver = example.driverClass().map(type -> {
            NodeId id = ExampleSimulation.DRIVER_ID;
            clients.put(id, new ClusterSpec.Member("127.0.0.1:" + Deployment.freeLoopbackPort(), type.getName(), clientArgs));
            return id;
        });
        ClusterSpec cluster = new ClusterSpec(members, clients, faults);
        return new Deployment.Plan(cluster, driver, traceDirectory.map(Path::toAbsolutePath),
                workDirectory.toAbsolutePath(), duration, actions, classpath, settings(), command, nodeJvmFlags,
                Deployment.Plan.Ports.CHOSEN_FREE);
    }

    /** Builds an {@link ExampleDeployment}; every setting has the default named in {@link #builder}. */
    public static final class Builder {
        private final Example example;
        private int nodes;
        private Optional<String> bug = Optional.empty();
        private final Map<String, String> extraArgs = new LinkedHashMap<>();
        private final Map<String, String> clientArgs = new LinkedHashMap<>();
        private FaultModel.Builder faults = FaultModel.builder();
        private Duration duration = Duration.ofSeconds(20);
        private final List<Deployment.NodeAction> actions = new ArrayList<>();
        private Optional<Path> traceDirectory = Optional.empty();
        private Path workDirectory;
        private String classpath = System.getProperty("java.class.path");
        private String command = "";
        private List<String> nodeJvmFlags = List.of();

        private Builder(Example example) {
            this.example = Objects.requireNonNull(example, "example");
            this.nodes = example.defaultNodes();
        }

        public Builder nodes(int count) { this.nodes = count; return this; }

        public Builder bug(String name) { this.bug = Optional.ofNullable(name); return this; }

        public Builder arg(String key, String value) { extraArgs.put(key, value); return this; }

        /** An argument for the example's workload client (none by default). */
        public Builder clientArg(String key, String value) { clientArgs.put(key, value); return this; }

        /** Replaces every fault set so far with {@code model}. */
        public Builder faults(FaultModel model) { this.faults = model.toBuilder(); return this; }

        public Builder dropProbability(double probability) { faults.dropProbability(probability); return this; }

        /** An extra delay of 0..{@code delay} per message. */
        public Builder maxExtraDelay(Duration delay) { faults.delayMillis(0, delay.toMillis()); return this; }

        /** The seed of the injected faults (default 0). */
        public Builder faultSeed(long seed) { faults.seed(seed); return this; }

        public Builder duration(Duration value) { this.duration = value; return this; }

        public Builder kill(NodeId node, Duration at) {
            actions.add(new Deployment.NodeAction(Deployment.NodeAction.Kind.KILL, node, at));
            return this;
        }

        public Builder restart(NodeId node, Duration at) {
            actions.add(new Deployment.NodeAction(Deployment.NodeAction.Kind.RESTART, node, at));
            return this;
        }

        public Builder action(Deployment.NodeAction action) { actions.add(action); return this; }

        /** Records into {@code trace}; without this the deployment runs unrecorded. */
        public Builder record(Path trace) { this.traceDirectory = Optional.of(trace); return this; }

        /** Where node storage and node output go; required. */
        public Builder workDirectory(Path directory) { this.workDirectory = directory; return this; }

        /** The classpath node processes run with (default: this JVM's). */
        public Builder classpath(String value) { this.classpath = value; return this; }

        /** The command line that started this, kept in the trace for people reading it later. */
        public Builder command(String value) { this.command = value; return this; }

        /** Extra flags for the node JVMs (see {@link Deployment.Plan#nodeJvmFlags()}); none by default. */
        public Builder nodeJvmFlags(List<String> flags) { this.nodeJvmFlags = List.copyOf(flags); return this; }

        public ExampleDeployment build() {
            Objects.requireNonNull(workDirectory, "workDirectory");
            return new ExampleDeployment(example, nodes, bug, extraArgs, clientArgs,
                    faults.build(), duration, actions, traceDirectory,
                    workDirectory, classpath, command, nodeJvmFlags);
        }
    }
}
