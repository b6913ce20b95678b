package dev.deja.runtime;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The faults a run injects, in one vocabulary for the live transport of a deployment, the simulator and the
 * exploration: message loss, duplication and delay, network partitions, node crashes and restarts, clock skew,
 * and the seed the live transport draws them from.
 *
 * <p>The simulator draws every fault from its own choice source (its {@code --seed}); a deployment draws each
 * message's loss, duplication and delay from {@link #seed()}, the sender, the destination and the message id, so
 * that a message with the same id meets the same fate in every deployment with the same seed.
 *
 * <p>In a cluster file it is the {@code "faults"} object ({@link #fromJson}), for example
 * {@code {"seed": 7, "dropProbability": 0.1, "delayMillis": "0..20", "partitions": ["n1|n2,n3@2s..4s"],
 * "kill": ["n2@1s"], "restart": ["n2@3s"]}}; the older {@code "maxExtraDelayMillis": MAX} still reads as
 * {@code 0..MAX}.
 *
 * @param dropProbability      chance that a message between two different nodes is lost
 * @param duplicateProbability chance that a message is delivered twice
 * @param minDelayMillis       shortest time a message spends in the network (in a deployment: extra delay)
 * @param maxDelayMillis       longest time a message spends in the network; unequal delays reorder messages
 * @param partitions           network partitions and their healing, timed from the start of the workload
 * @param crashRate            simulator only: chance, after each step, that one running node crashes
 * @param restartDelayMillis   simulator only: how long a crashed node stays down before it restarts
 * @param scheduled            kills and restarts at fixed times since the start of the workload
 * @param clockSkewMillis      each node's clock is off by a fixed amount within ± this
 * @param seed                 the seed of a deployment's injected faults
 */
public record FaultModel(double dropProbability, double duplicateProbability, long minDelayMillis,
                         long maxDelayMillis, List<Partition> partitions, double crashRate, long restartDelayMillis,
                         List<Scheduled> scheduled, long clockSkewMillis, long seed) {
    /** No faults at all, no delay, seed 0. */
    public static final FaultModel NONE = builder().build();

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

    /** A kill ({@code kill -9}, or a crash in the simulator) or a restart of one node at a fixed time. */
    public record Scheduled(Kind kind, NodeId node, long atMillis) {
        /** What happens to the node. */
        public enum Kind { KILL, RESTART }

        public Scheduled {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(node, "node");
            if (atMillis < 0) {
                throw new IllegalArgumentException("a " + kind.name().toLowerCase() + " time cannot be negative");
            }
        }

        /** Parses {@code NODE@TIME}, e.g. {@code n2@1.5s}. */
        public static Scheduled parse(Kind kind, String text) {
            String option = "--" + kind.name().toLowerCase();
            int at = text.indexOf('@');
            if (at <= 0 || at == text.length() - 1) {
                throw new IllegalArgumentException(option + " '" + text + "': expected NODE@TIME, e.g. n2@5s");
            }
            return new Scheduled(kind, new NodeId(text.substring(0, at).strip()),
                    millis(text.substring(at + 1), option + " '" + text + "'"));
        }

        /** {@code NODE@TIMEms}, which {@link #parse} reads back. */
        @Override
        public String toString() {
            return node.value() + "@" + atMillis + "ms";
        }
    }

    public FaultModel {
        requireProbability("--drop", dropProbability);
        requireProbability("--dup", duplicateProbability);
        requireProbability("--crash-rate", crashRate);
        if (minDelayMillis < 0 || maxDelayMillis < minDelayMillis) {
            throw new IllegalArgumentException("--delay must read MIN..MAX with 0 <= MIN <= MAX, was " + minDelayMillis
                    + ".." + maxDelayMillis + " ms");
        }
        if (restartDelayMillis < 0) {
            throw new IllegalArgumentException("--restart-delay must not be negative, was " + restartDelayMillis + " ms");
        }
        if (clockSkewMillis < 0) {
            throw new IllegalArgumentException("--clock-skew must not be negative, was " + clockSkewMillis + " ms");
        }
        partitions = List.copyOf(partitions);
        scheduled = scheduled.stream().sorted((a, b) -> Long.compare(a.atMillis(), b.atMillis())).toList();
    }

    private static void requireProbability(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " is a probability between 0 and 1, was " + value);
        }
    }

    /** A builder starting from no faults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this model. */
    public Builder toBuilder() {
        Builder builder = new Builder().dropProbability(dropProbability).duplicateProbability(duplicateProbability)
                .delayMillis(minDelayMillis, maxDelayMillis).crashRate(crashRate).restartDelayMillis(restartDelayMillis)
                .clockSkewMillis(clockSkewMillis).seed(seed);
        partitions.forEach(builder::partition);
        scheduled.forEach(builder::schedule);
        return builder;
    }

    /** Whether the live transport must draw anything for a message (or check partitions). */
    public boolean affectsMessages() {
        return dropProbability > 0 || duplicateProbability > 0 || maxDelayMillis > 0 || !partitions.isEmpty();
    }

    /** What the live network does to one message: lose it, or deliver it once or twice after a delay. */
    public record MessageFate(boolean dropped, boolean duplicated, long delayMillis) {
    }

    /**
     * The fate of message {@code messageId} from {@code from} to {@code to} in a deployment: a pure function of the
     * seed and these three, so it does not depend on thread timing or on the order in which messages are sent.
     * Partitions are not part of it (they depend on when the message is sent).
     */
    public MessageFate fateOf(NodeId from, NodeId to, long messageId) {
        SplittableRandom random = new SplittableRandom(mix(mix(mix(seed, from.value().hashCode()), to.value().hashCode()),
                messageId));
        boolean dropped = random.nextDouble() < dropProbability;
        boolean duplicated = random.nextDouble() < duplicateProbability;
        long delayMillis = maxDelayMillis == minDelayMillis ? minDelayMillis
                : random.nextLong(minDelayMillis, maxDelayMillis + 1);
        return new MessageFate(dropped, duplicated, delayMillis);
    }

    /** The fixed offset of {@code node}'s clock in a deployment, within ± {@link #clockSkewMillis()}. */
    public long clockSkewOf(NodeId node) {
        if (clockSkewMillis == 0) {
            return 0;
        }
        return new SplittableRandom(mix(mix(seed, 0x5EED), node.value().hashCode()))
                .nextLong(-clockSkewMillis, clockSkewMillis + 1);
    }

    /** Whether a partition separates {@code a} from {@code b} at {@code sinceStartMillis} since the workload began. */
    public boolean partitioned(NodeId a, NodeId b, long sinceStartMillis) {
        for (Partition partition : partitions) {
            if (partition.separates(a, b, sinceStartMillis)) {
                return true;
            }
        }
        return false;
    }

    private static long mix(long hash, long value) {
        long mixed = (hash * 0x9E3779B97F4A7C15L + value) ^ 0x632BE59BD9B4E019L;
        mixed = (mixed ^ (mixed >>> 30)) * 0xBF58476D1CE4E5B9L;
        mixed = (mixed ^ (mixed >>> 27)) * 0x94D049BB133111EBL;
        return mixed ^ (mixed >>> 31);
    }

    /** Refuses a model that names a node not in {@code known}, naming the fault and the known nodes. */
    public void requireNodes(Set<NodeId> known) {
        for (Partition partition : partitions) {
            for (Set<NodeId> group : partition.groups()) {
                for (NodeId node : group) {
                    if (!known.contains(node)) {
                        throw new IllegalArgumentException("partition " + partition + " names node " + node
                                + ", which is not in the cluster " + known.stream().sorted().toList());
                    }
                }
            }
        }
        for (Scheduled action : scheduled) {
            if (!known.contains(action.node())) {
                throw new IllegalArgumentException("cannot " + action.kind().name().toLowerCase() + " " + action.node()
                        + ": not a node of the cluster " + known.stream().sorted().toList());
            }
        }
    }

    /**
     * The model as plain values, the {@code "faults"} object of a cluster file and of {@code trace.json};
     * {@link #fromJson} reads it back.
     */
    @JsonValue
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seed", seed);
        out.put("dropProbability", dropProbability);
        out.put("duplicateProbability", duplicateProbability);
        out.put("delayMillis", minDelayMillis + ".." + maxDelayMillis);
        out.put("partitions", partitions.stream().map(Partition::toString).toList());
        out.put("crashRate", crashRate);
        out.put("restartDelayMillis", restartDelayMillis);
        out.put("kill", scheduled.stream().filter(s -> s.kind() == Scheduled.Kind.KILL).map(Scheduled::toString).toList());
        out.put("restart", scheduled.stream().filter(s -> s.kind() == Scheduled.Kind.RESTART).map(Scheduled::toString)
                .toList());
        out.put("clockSkewMillis", clockSkewMillis);
        return out;
    }

    /**
     * Reads the {@code "faults"} object of a cluster file; every key is optional, an unknown key is refused with
     * the list of known ones.
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static FaultModel fromJson(Map<String, Object> json) {
        Builder builder = builder();
        if (json == null) {
            return builder.build();
        }
        for (var entry : json.entrySet()) {
            Object value = entry.getValue();
            String key = entry.getKey();
            if (value == null) {
                continue;
            }
            switch (key) {
                case "seed" -> builder.seed(number(key, value).longValue());
                case "dropProbability" -> builder.dropProbability(number(key, value).doubleValue());
                case "duplicateProbability" -> builder.duplicateProbability(number(key, value).doubleValue());
                case "delayMillis", "delay" -> {
                    long[] range = delayRange(value.toString(), "faults." + key);
                    builder.delayMillis(range[0], range[1]);
                }
                case "maxExtraDelayMillis" -> builder.delayMillis(0, number(key, value).longValue());
                case "minDelayMillis" -> builder.minDelayMillis = number(key, value).longValue();
                case "maxDelayMillis" -> builder.maxDelayMillis = number(key, value).longValue();
                case "partitions" -> strings(key, value).forEach(p -> builder.partition(Partition.parse(p)));
                case "crashRate" -> builder.crashRate(number(key, value).doubleValue());
                case "restartDelayMillis" -> builder.restartDelayMillis(number(key, value).longValue());
                case "kill" -> strings(key, value).forEach(k -> builder.schedule(Scheduled.parse(Scheduled.Kind.KILL, k)));
                case "restart" -> strings(key, value).forEach(r -> builder.schedule(
                        Scheduled.parse(Scheduled.Kind.RESTART, r)));
                case "clockSkewMillis" -> builder.clockSkewMillis(number(key, value).longValue());
                default -> throw new IllegalArgumentException("faults: unknown key '" + key + "' (known: seed, "
                        + "dropProbability, duplicateProbability, delayMillis, partitions, crashRate, restartDelayMillis, "
                        + "kill, restart, clockSkewMillis, and the older maxExtraDelayMillis)");
            }
        }
        return builder.build();
    }

    private static Number number(String key, Object value) {
        if (value instanceof Number number) {
            return number;
        }
        try {
            return Double.valueOf(value.toString());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("faults." + key + " must be a number, was '" + value + "'");
        }
    }

    private static List<String> strings(String key, Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        if (value instanceof String text) {
            return List.of(text);
        }
        throw new IllegalArgumentException("faults." + key + " must be a list of strings, was " + value);
    }

    /**
     * Parses a delay range {@code MIN..MAX} (durations such as {@code 1ms..50ms}, plain numbers being
     * milliseconds) or a single {@code MAX}, meaning {@code 0..MAX}.
     */
    public static long[] delayRange(String text, String context) {
        String value = text.strip();
        int dots = value.indexOf("..");
        if (dots < 0) {
            return new long[] {0, millis(value, context)};
        }
        long min = millis(value.substring(0, dots), context);
        long max = millis(value.substring(dots + 2), context);
        if (max < min) {
            throw new IllegalArgumentException(context + " '" + text + "': MAX is smaller than MIN");
        }
        return new long[] {min, max};
    }

    /** Parses {@code 250ms}, {@code 2s}, {@code 1.5m}, {@code 1h} or a plain number of milliseconds. */
    public static long millis(String text, String context) {
        Matcher matcher = DURATION.matcher(text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + text.strip() + "' in " + context
                    + " is not a duration such as 500ms, 2s or 1m");
        }
        double amount = Double.parseDouble(matcher.group(1));
        String unit = matcher.group(2) == null ? "ms" : matcher.group(2);
        return Math.round(amount * switch (unit) {
            case "ms" -> 1;
            case "s" -> 1_000;
            case "m" -> 60_000;
            default -> 3_600_000;
        });
    }

    /** Builds a {@link FaultModel}; every setting starts at "no fault". */
    public static final class Builder {
        private double dropProbability;
        private double duplicateProbability;
        private long minDelayMillis;
        private long maxDelayMillis;
        private final List<Partition> partitions = new ArrayList<>();
        private double crashRate;
        private long restartDelayMillis = 500;
        private final List<Scheduled> scheduled = new ArrayList<>();
        private long clockSkewMillis;
        private long seed;

        private Builder() {
        }

        public Builder dropProbability(double value) { dropProbability = value; return this; }

        public Builder duplicateProbability(double value) { duplicateProbability = value; return this; }

        public Builder delayMillis(long min, long max) { minDelayMillis = min; maxDelayMillis = max; return this; }

        public Builder partition(Partition partition) { partitions.add(partition); return this; }

        public Builder crashRate(double value) { crashRate = value; return this; }

        public Builder restartDelayMillis(long value) { restartDelayMillis = value; return this; }

        public Builder schedule(Scheduled action) { scheduled.add(action); return this; }

        public Builder clockSkewMillis(long value) { clockSkewMillis = value; return this; }

        public Builder seed(long value) { seed = value; return this; }

        public FaultModel build() {
            return new FaultModel(dropProbability, duplicateProbability, minDelayMillis, maxDelayMillis, partitions,
                    crashRate, restartDelayMillis, scheduled, clockSkewMillis, seed);
        }
    }
}
