package dev.deja.sim;

import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything that decides a simulated run besides the choice source: the cluster, the faults and when to
 * stop. Written into the trace's {@code trace.json} so that a trace says how to make it again.
 *
 * @param nodes                 the recorded cluster nodes: id to class and arguments
 * @param driver                an unrecorded workload client run as one more node, if any (as in a deployment)
 * @param seed                  the seed of the default choice source
 * @param dropProbability       chance that the network loses a message
 * @param duplicateProbability  chance that the network delivers a message twice
 * @param minDelayMillis        shortest time a message spends in the network
 * @param maxDelayMillis        longest time a message spends in the network; different delays reorder messages
 * @param crashRate             chance, after each step, that one running node (chosen by the source) crashes
 * @param restartDelayMillis    how long a crashed node stays down before it restarts as a new incarnation
 * @param clockSkewMillis       each node's clock is off from virtual time by a fixed amount within ± this
 * @param partitions            network partitions and their healing
 * @param maxSteps              stop after this many steps (deliveries and timer firings)
 * @param maxVirtualMillis      stop when this much virtual time has passed
 * @param stop                  whether a finished workload driver ends the run early
 */
public record SimulationSettings(Map<NodeId, NodeSpec> nodes, Optional<DriverSpec> driver, long seed,
                                 double dropProbability, double duplicateProbability, long minDelayMillis,
                                 long maxDelayMillis, double crashRate, long restartDelayMillis, long clockSkewMillis,
                                 List<Partition> partitions, long maxSteps, long maxVirtualMillis, Stop stop) {
    /** The virtual-time limit that never ends a run (for step-bounded runs); far from overflow when added to. */
    public static final long UNLIMITED_VIRTUAL_MILLIS = Long.MAX_VALUE / 4;

    /** When a run ends besides its step and time limits. */
    public enum Stop {
        /** When the workload driver says it is finished, as a deployment does. */
        WHEN_DRIVER_FINISHES,
        /** Only at the step or virtual-time limit, or when nothing is left to happen. */
        AT_LIMIT
    }

    /** The class a node runs and its arguments. */
    public record NodeSpec(String className, Map<String, String> args) {
        public NodeSpec {
            Objects.requireNonNull(className, "className");
            args = Map.copyOf(args);
        }
    }

    /** The workload client: an unrecorded node that sends to the cluster. */
    public record DriverSpec(NodeId id, String className) {
    }

    public SimulationSettings {
        nodes = Map.copyOf(new LinkedHashMap<>(nodes));
        partitions = List.copyOf(partitions);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a simulation needs at least one node");
        }
        requireProbability("--drop", dropProbability);
        requireProbability("--dup", duplicateProbability);
        requireProbability("--crash-rate", crashRate);
        if (minDelayMillis < 0 || maxDelayMillis < minDelayMillis) {
            throw new IllegalArgumentException("--delay must read MIN..MAX with 0 <= MIN <= MAX, was " + minDelayMillis
                    + ".." + maxDelayMillis + " ms");
        }
        if (restartDelayMillis < 0 || clockSkewMillis < 0) {
            throw new IllegalArgumentException("restart delay and clock skew must not be negative");
        }
        if (maxSteps < 1 || maxVirtualMillis < 1) {
            throw new IllegalArgumentException("--steps and --virtual-time must be positive");
        }
        if (driver.isPresent() && nodes.containsKey(driver.get().id())) {
            throw new IllegalArgumentException("the driver's id " + driver.get().id() + " is also a cluster node");
        }
        for (Partition partition : partitions) {
            for (var group : partition.groups()) {
                for (NodeId node : group) {
                    if (!nodes.containsKey(node) && !(driver.isPresent() && driver.get().id().equals(node))) {
                        throw new IllegalArgumentException("partition " + partition + " names node " + node
                                + ", which is not in the cluster " + nodes.keySet().stream().sorted().toList());
                    }
                }
            }
        }
    }

    private static void requireProbability(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " is a probability between 0 and 1, was " + value);
        }
    }

    /** The settings as plain values for {@code trace.json}. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seed", seed);
        Map<String, Object> nodeDescriptions = new LinkedHashMap<>();
        nodes.keySet().stream().sorted().forEach(id -> nodeDescriptions.put(id.value(),
                Map.of("class", nodes.get(id).className(), "args", new java.util.TreeMap<>(nodes.get(id).args()))));
        out.put("nodes", nodeDescriptions);
        out.put("driver", driver.map(d -> d.id() + " " + d.className()).orElse(null));
        out.put("dropProbability", dropProbability);
        out.put("duplicateProbability", duplicateProbability);
        out.put("delayMillis", minDelayMillis + ".." + maxDelayMillis);
        out.put("crashRate", crashRate);
        out.put("restartDelayMillis", restartDelayMillis);
        out.put("clockSkewMillis", clockSkewMillis);
        out.put("partitions", partitions.stream().map(Partition::toString).toList());
        out.put("maxSteps", maxSteps);
        out.put("maxVirtualMillis", maxVirtualMillis);
        out.put("stop", stop.name());
        return out;
    }

    /** A builder with no faults, 1..10 ms delays, 60 s of virtual time and stopping when the driver finishes. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link SimulationSettings}. */
    public static final class Builder {
        private final Map<NodeId, NodeSpec> nodes = new LinkedHashMap<>();
        private Optional<DriverSpec> driver = Optional.empty();
        private long seed = 1;
        private double dropProbability;
        private double duplicateProbability;
        private long minDelayMillis = 1;
        private long maxDelayMillis = 10;
        private double crashRate;
        private long restartDelayMillis = 500;
        private long clockSkewMillis;
        private final List<Partition> partitions = new ArrayList<>();
        private long maxSteps = Long.MAX_VALUE;
        private long maxVirtualMillis = 60_000;
        private Stop stop = Stop.WHEN_DRIVER_FINISHES;

        private Builder() {
        }

        public Builder node(NodeId id, String className, Map<String, String> args) {
            nodes.put(id, new NodeSpec(className, args));
            return this;
        }

        public Builder driver(NodeId id, String className) { driver = Optional.of(new DriverSpec(id, className)); return this; }

        public Builder seed(long value) { seed = value; return this; }

        public Builder dropProbability(double value) { dropProbability = value; return this; }

        public Builder duplicateProbability(double value) { duplicateProbability = value; return this; }

        public Builder delayMillis(long min, long max) { minDelayMillis = min; maxDelayMillis = max; return this; }

        public Builder crashRate(double value) { crashRate = value; return this; }

        public Builder restartDelayMillis(long value) { restartDelayMillis = value; return this; }

        public Builder clockSkewMillis(long value) { clockSkewMillis = value; return this; }

        public Builder partition(Partition partition) { partitions.add(partition); return this; }

        public Builder maxSteps(long value) { maxSteps = value; return this; }

        public Builder maxVirtualMillis(long value) { maxVirtualMillis = value; return this; }

        public Builder stop(Stop value) { stop = value; return this; }

        public SimulationSettings build() {
            return new SimulationSettings(nodes, driver, seed, dropProbability, duplicateProbability, minDelayMillis,
                    maxDelayMillis, crashRate, restartDelayMillis, clockSkewMillis, partitions, maxSteps,
                    maxVirtualMillis, stop);
        }
    }
}
