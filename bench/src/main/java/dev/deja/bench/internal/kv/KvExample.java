package dev.deja.bench.internal.kv;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.util.Map;
import java.util.Optional;

/**
 * The replicated key-value store as an {@link Example}, so that the benchmarks deploy and simulate it the way
 * {@code deja deploy} and {@code deja simulate} run the shipped examples. Not registered in
 * {@link dev.deja.examples.Examples}: it is a workload, not a debugging example.
 *
 * @param nodeClass  the replica class (the plain one, or one that also logs every event)
 * @param driver     the client class
 */
public record KvExample(Class<? extends Node> nodeClass, Class<? extends WorkloadDriver> driver) implements Example {
    /** Plain replicas and a client that starts at once (for the simulator). */
    public static KvExample simulated() {
        return new KvExample(KvReplica.class, KvClient.class);
    }

    /** Plain replicas and a client that waits for {@link KvClient#resume()}. */
    public static KvExample gated() {
        return new KvExample(KvReplica.class, KvClient.Gated.class);
    }

    @Override
    public String name() {
        return "kv";
    }

    @Override
    public String description() {
        return "a primary-backup key-value store under a closed-loop client (benchmark workload)";
    }

    @Override
    public Map<String, String> bugs() {
        return Map.of();
    }

    @Override
    public int defaultNodes() {
        return 3;
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(driver);
    }
}
