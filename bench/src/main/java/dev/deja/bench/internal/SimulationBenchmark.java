package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.BenchPlan;
import dev.deja.bench.Summary;
import dev.deja.examples.Example;
import dev.deja.examples.Examples;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Simulation speed: steps (deliveries and timer firings) per second of wall time simulating every registered
 * example, trace writing included, with the same loss rate as its checker trace so that the run keeps going.
 * The headline is the slowest example.
 */
final class SimulationBenchmark {
    private final Workspace workspace;

    SimulationBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() {
        BenchPlan plan = workspace.plan();
        Map<String, ObjectNode> perExample = new LinkedHashMap<>();
        List<String> failed = new ArrayList<>();
        for (Example example : Examples.all()) {
            try {
                perExample.put(example.name(), measure(example, plan));
            } catch (RuntimeException e) {
                // One example's failure must not cost the other figures.
                workspace.progress().say("simulation %s: failed, left out: %s", example.name(), e);
                failed.add(example.name() + " (failed: " + e.getMessage() + ")");
            }
        }
        if (perExample.isEmpty()) {
            throw new IllegalStateException("no example could be simulated; " + String.join("; ", failed));
        }
        return Results.headline(perExample, false, "simulated steps (message deliveries and timer firings) per"
                + " second, trace written", null, failed);
    }

    private ObjectNode measure(Example example, BenchPlan plan) {
        double drop = workspace.exampleTrace(example).dropProbability();
        SimulationSettings settings = Workspace.exampleSettings(example, drop, plan.simulationSteps());
        List<Double> steps = new ArrayList<>();
        List<Double> entries = new ArrayList<>();
        long lastSteps = 0;
        for (int round = 0; round <= plan.rounds(); round++) { // round 0 warms up
            Path trace = workspace.path("simulation/" + example.name() + "-" + round);
            SimulationResult result = Simulator.run(settings, trace, Workspace.options(settings));
            Workspace.delete(trace);
            if (round == 0) {
                continue;
            }
            double seconds = result.elapsed().toNanos() / 1e9;
            steps.add(result.steps() / seconds);
            entries.add(result.entries() / seconds);
            lastSteps = result.steps();
            workspace.progress().say("simulation %s: round %d/%d: %d steps, %d entries in %.2f s (%.0f steps/s)",
                    example.name(), round, plan.rounds(), result.steps(), result.entries(), seconds,
                    result.stepsPerSecond());
        }
        ObjectNode node = Results.summary(Summary.of(steps));
        node.put("steps", lastSteps);
        node.put("nodes", example.defaultNodes());
        node.put("drop_probability", drop);
        node.set("entries_per_s", Results.summary(Summary.of(entries)));
        return node;
    }
}
