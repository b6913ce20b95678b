package dev.deja.sim;

import dev.deja.node.NodeId;
import dev.deja.runtime.FaultModel;
import dev.deja.runtime.Partition;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything that decides a simulated run besides the choice source: the cluster, the faults and when to
 * stop. Written into the trace's {@code trace.json} so that a trace says how to make it again.
 *
 * <p>The faults are a {@link FaultModel}, the vocabulary deployments use too; the simulator draws every one of
 * them from its choice source, so the model's own seed is this run's {@link #seed()}. Scheduled kills and restarts
 * ({@link FaultModel#scheduled()}) are for deployments; the simulator crashes nodes at {@link #crashRate()}.
 * The fault accessors ({@link #dropProbability()} and the others) read the model.
 *
 * @param nodes            the recorded cluster nodes: id to class and arguments
 * @param driver           an unrecorded workload client run as one more node, if any (as in a deployment)
 * @param seed             the seed of the default choice source
 * @param faults           message loss, duplication and delay, partitions, crashes, clock skew
 * @param maxSteps         stop after this many steps (deliveries and timer firings)
 * @param maxVirtualMillis stop when this much virtual time has passed
 * @param stop             whether a finished workload driver ends the run early
 */
public record SimulationSettings(Map<NodeId, NodeSpec> nodes, Optional<DriverSpec> driver, long seed,
                                 FaultModel faults, long maxSteps, long maxVirtualMillis, Stop stop) {
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
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a simulation needs at least one node");
        }
        faults = faults.seed() == seed ? faults : faults.toBuilder().seed(seed).build();
        if (!faults.scheduled().isEmpty()) {
            throw new IllegalArgumentException("the simulator does not take --kill/--restart at fixed times ("
                    + faults.scheduled() + "); it crashes nodes with --crash-rate and --restart-delay");
        }
        if (maxSteps < 1 || maxVirtualMillis < 1) {
            throw new IllegalArgumentException("--steps and --virtual-time must be positive");
        }
        if (driver.isPresent() && nodes.containsKey(driver.get().id())) {
            throw new IllegalArgumentException("the driver's id " + driver.get().id() + " is also a cluster node");
        }
        Set<NodeId> known = new HashSet<>(nodes.keySet());
        driver.ifPresent(d -> known.add(d.id()));
        faults.requireNodes(known);
    }

    /** Chance that the network loses a message. */
    public double dropProbability() {
        return faults.dropProbability();
    }

    /** Chance that the network delivers a message twice. */
    public double duplicateProbability() {
        return faults.duplicateProbability();
    }

    /** Shortest time a message spends in the network. */
    public long minDelayMillis() {
        return faults.minDelayMillis();
    }

    /** Longest time a message spends in the network; different delays reorder messages. */
    public long maxDelayMillis() {
        return faults.maxDelayMillis();
    }

    /** Chance, after each step, that one running node (chosen by the source) crashes. */
    public double crashRate() {
        return faults.crashRate();
    }

    /** How long a crashed node stays down before it restarts as a new incarnation. */
    public long restartDelayMillis() {
        return faults.restartDelayMillis();
    }

    /** Each node's clock is off from virtual time by a fixed amount within ± this. */
    public long clockSkewMillis() {
        return faults.clockSkewMillis();
    }

    /** Network partitions and their healing. */
    public List<Partition> partitions() {
        return faults.partitions();
    }

    /** The settings as plain values for {@code trace.json}. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seed", seed);
        Map<String, Object> nodeDescriptions = new LinkedHashMap<>();
        nodes.keySet().stream().sorted().forEach(id -> {
            // A fixed key order, so that the same run writes the same trace.json, byte for byte.
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("class", nodes.get(id).className());
            node.put("args", new java.util.TreeMap<>(nodes.get(id).args()));
            nodeDescriptions.put(id.value(), node);
        });
        out.put("nodes", nodeDescriptions);
        out.put("driver", driver.map(d -> d.id() + " " + d.className()).orElse(null));
        out.put("dropProbability", dropProbability());
        out.put("duplicateProbability", duplicateProbability());
        out.put("delayMillis", minDelayMillis() + ".." + maxDelayMillis());
        out.put("crashRate", crashRate());
        out.put("restartDelayMillis", restartDelayMillis());
        out.put("clockSkewMillis", clockSkewMillis());
        out.put("partitions", partitions().stream().map(Partition::toString).toList());
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
        private FaultModel.Builder faults = FaultModel.builder().delayMillis(1, 10);
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

        /** Replaces every fault set so far with {@code model} (its seed is replaced by {@link #seed}). */
        public Builder faults(FaultModel model) { faults = model.toBuilder(); return this; }

        public Builder dropProbability(double value) { faults.dropProbability(value); return this; }

        public Builder duplicateProbability(double value) { faults.duplicateProbability(value); return this; }

        public Builder delayMillis(long min, long max) { faults.delayMillis(min, max); return this; }

        public Builder crashRate(double value) { faults.crashRate(value); return this; }

        public Builder restartDelayMillis(long value) { faults.restartDelayMillis(value); return this; }

        public Builder clockSkewMillis(long value) { faults.clockSkewMillis(value); return this; }

        public Builder partition(Partition partition) { faults.partition(partition); return this; }

        public Builder maxSteps(long value) { maxSteps = value; return this; }

        public Builder maxVirtualMillis(long value) { maxVirtualMillis = value; return this; }

        public Builder stop(Stop value) { stop = value; return this; }

        public SimulationSettings build() {
            return new SimulationSettings(nodes, driver, seed, faults.seed(seed).build(), maxSteps, maxVirtualMillis,
                    stop);
        }
    }
}
