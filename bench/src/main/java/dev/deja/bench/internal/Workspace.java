package dev.deja.bench.internal;

import dev.deja.bench.BenchPlan;
import dev.deja.bench.BenchSettings;
import dev.deja.bench.internal.kv.KvExample;
import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The files of one benchmark run and the traces its sections share: simulated key-value traces by length, the
 * trace the recording section recorded, and each example's simulated trace for the checker. Single-threaded.
 */
final class Workspace {
    /** The seed of every simulated run, so that a run's traces are the same every time. */
    static final long SEED = 1;
    /** Message-loss rates tried, in order, until an example's workload keeps running for the steps asked for. */
    static final List<Double> DROP_RATES = List.of(0.0, 0.3, 0.5, 0.6, 0.7, 0.8);
    // A key-value operation is 10 entries over 6 steps (a put) or 2 entries over 2 steps (a get), four puts to a get.
    private static final double KV_ENTRIES_PER_STEP = 1.5;

    /** An example's trace for the checker and how it was made. */
    record ExampleTrace(Example example, Path trace, double dropProbability, SimulationResult result) {
    }

    private final BenchSettings settings;
    private final Progress progress;
    private final TreeMap<Long, Path> kvTraces = new TreeMap<>();
    private final Map<String, ExampleTrace> exampleTraces = new HashMap<>();
    private Path recordedKvTrace;

    Workspace(BenchSettings settings, Progress progress) throws IOException {
        this.settings = settings;
        this.progress = progress;
        Path work = settings.workDirectory();
        if (Files.isDirectory(work)) {
            try (Stream<Path> entries = Files.list(work)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("the work directory " + work + " already holds files;"
                            + " choose a new one");
                }
            }
        }
        Files.createDirectories(work);
    }

    BenchPlan plan() {
        return settings.plan();
    }

    BenchSettings settings() {
        return settings;
    }

    Progress progress() {
        return progress;
    }

    /** A new directory {@code name} in the work directory (its parent is created; it is not). */
    Path path(String name) {
        Path path = settings.workDirectory().resolve(name);
        try {
            Files.createDirectories(path.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + path.getParent(), e);
        }
        return path;
    }

    /** The trace the recording section recorded from the loopback key-value cluster, if it ran. */
    Optional<Path> recordedKvTrace() {
        return Optional.ofNullable(recordedKvTrace);
    }

    void recordedKvTrace(Path trace) {
        this.recordedKvTrace = trace;
    }

    /**
     * A simulated trace of the three-replica key-value store with at least {@code minEntries} entries (made once,
     * then reused by every section that asks for it or for fewer).
     */
    /** How many entries a key-value trace made by {@link #kvTrace} holds. */
    long kvTraceEntries(Path trace) {
        return kvTraces.entrySet().stream().filter(e -> e.getValue().equals(trace)).mapToLong(Map.Entry::getKey)
                .findFirst().orElseThrow(() -> new IllegalArgumentException(trace + " is not a key-value trace of this run"));
    }

    Path kvTrace(long minEntries) {
        var existing = kvTraces.ceilingEntry(minEntries);
        if (existing != null && existing.getKey() <= minEntries * 2) {
            return existing.getValue();
        }
        long steps = (long) Math.ceil(minEntries / KV_ENTRIES_PER_STEP);
        while (true) {
            Path trace = path("traces/kv-" + minEntries + "-" + steps);
            SimulationSettings simulation = ExampleSimulation.settings(KvExample.simulated(), 3, Optional.empty())
                    .seed(SEED).maxSteps(steps).maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS)
                    .stop(SimulationSettings.Stop.AT_LIMIT).build();
            SimulationResult result = Simulator.run(simulation, trace, options(simulation));
            progress.say("simulated the key-value store: %d steps, %d entries in %.1f s", result.steps(),
                    result.entries(), result.elapsed().toNanos() / 1e9);
            if (result.entries() >= minEntries) {
                kvTraces.put(result.entries(), trace);
                return trace;
            }
            delete(trace);
            steps = (long) Math.ceil(steps * 1.1 * minEntries / Math.max(1, result.entries()));
        }
    }

    /**
     * {@code example}'s simulated trace for the checker: no bug, its default cluster, {@value #SEED} as seed, and the
     * lowest loss rate of {@link #DROP_RATES} at which the workload keeps running for the plan's check steps (a
     * protocol that decides once and falls silent needs lost messages to keep going). If none gets that far, the
     * longest run is kept.
     */
    ExampleTrace exampleTrace(Example example) {
        ExampleTrace cached = exampleTraces.get(example.name());
        if (cached != null) {
            return cached;
        }
        ExampleTrace best = null;
        for (double drop : DROP_RATES) {
            Path trace = path("traces/" + example.name() + "-drop" + drop);
            SimulationSettings simulation = exampleSettings(example, drop, plan().checkSteps());
            SimulationResult result = Simulator.run(simulation, trace, options(simulation));
            progress.say("simulated %s with %.0f%% loss: %d steps, %d entries (%s)", example.name(), drop * 100,
                    result.steps(), result.entries(), result.ending());
            ExampleTrace candidate = new ExampleTrace(example, trace, drop, result);
            if (best == null || result.steps() > best.result().steps()) {
                if (best != null) {
                    delete(best.trace());
                }
                best = candidate;
            } else {
                delete(trace);
            }
            if (result.ending() == SimulationResult.Ending.STEP_LIMIT) {
                break;
            }
        }
        exampleTraces.put(example.name(), best);
        return best;
    }

    /** The simulation settings of {@code example} with loss {@code drop}, running to {@code steps} steps. */
    static SimulationSettings exampleSettings(Example example, double drop, long steps) {
        // An example whose workload ends by itself (the lock server's users stop after a few rounds) keeps going.
        return ExampleSimulation.settings(example, example.defaultNodes(), Optional.empty(), example.longRunArguments())
                .seed(SEED).dropProbability(drop)
                .maxSteps(steps).maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS)
                .stop(SimulationSettings.Stop.AT_LIMIT).build();
    }

    static Simulator.Options options(SimulationSettings simulation) {
        return Simulator.Options.of(simulation).withClassLoader(Workspace.class.getClassLoader());
    }

    /** Deletes a directory tree. */
    static void delete(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }

    /** The bytes the files under {@code path} occupy on disk (allocated blocks, as {@code du} counts them). */
    static long diskBytes(Path path) {
        try {
            Process du = new ProcessBuilder("du", "-s", "-B1", path.toString()).redirectErrorStream(true).start();
            String out = new String(du.getInputStream().readAllBytes()).trim();
            if (du.waitFor() == 0 && !out.isEmpty()) {
                return Long.parseLong(out.split("\\s+")[0]);
            }
        } catch (IOException | NumberFormatException e) {
            // fall back to the sum of file lengths below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return fileBytes(path);
    }

    /** The sum of the lengths of the files under {@code path}. */
    static long fileBytes(Path path) {
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + path, e);
        }
    }
}
