package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.FaultBudget;
import dev.deja.explore.Strategy;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import dev.deja.sim.TraceStart;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code explore --from}: what it costs to start from a recorded state. A Paxos run (seven nodes, 30% loss, 1..100 ms
 * delays, seed 1) is recorded; then, side by side in one JVM, the time to rebuild its state by replay at a quarter, half
 * and the end of it (mean of several rebuilds, each stopped before the first simulated step), and random paths without
 * predicates from the state at the half against the same number of paths from the cluster's boot.
 */
final class FromTraceBenchmark {
    private static final int REBUILDS = 20;
    private static final long PATHS = 100;
    private final Workspace workspace;

    FromTraceBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() {
        SimulationSettings settings = ExampleSimulation.settings(Examples.byName("paxos").orElseThrow(), 7, Optional.empty())
                .seed(1).dropProbability(0.3).delayMillis(1, 100).build();
        Path recorded = workspace.path("explore/from-trace");
        SimulationResult result = Simulator.run(settings, recorded, Workspace.options(settings));
        TraceStart.Recording recording = TraceStart.Recording.read(recorded);
        SimulationSettings continuation = ExampleSimulation.settings(Examples.byName("paxos").orElseThrow(), 7,
                Optional.empty()).seed(1).dropProbability(0.3).delayMillis(1, 100)
                .stop(SimulationSettings.Stop.AT_LIMIT).build();
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("recorded_entries", recording.entries());
        out.put("recorded_handler_calls", recording.handlerCalls());
        out.put("recorded_steps", result.steps());
        ObjectNode rebuild = out.putObject("rebuild_ms");
        rebuild(continuation, new TraceStart(recording.entries() - 1, recording), REBUILDS); // warm-up
        for (String at : new String[] {"quarter", "half", "end"}) {
            long position = switch (at) {
                case "quarter" -> recording.entries() / 4;
                case "half" -> recording.entries() / 2;
                default -> recording.entries() - 1;
            };
            TraceStart start = new TraceStart(position, recording);
            double[] millis = rebuild(continuation, start, REBUILDS);
            ObjectNode node = rebuild.putObject(at);
            node.put("position", position);
            node.put("handler_calls", start.handlerCalls());
            node.put("ms", Results.round(millis[0]));
            node.put("cpu_ms", Results.round(millis[1]));
            workspace.progress().say("explore from trace: rebuilding the state at %s (%d handler calls) takes %.2f ms "
                    + "(%.2f ms of CPU)", at, start.handlerCalls(), millis[0], millis[1]);
        }
        TraceStart half = new TraceStart(recording.entries() / 2, recording);
        out.set("paths_from_boot", paths(continuation, Optional.empty()));
        out.set("paths_from_half", paths(continuation, Optional.of(half)));
        return out;
    }

    /** Mean wall and CPU milliseconds (this thread's) of {@code times} rebuilds. */
    static double[] rebuild(SimulationSettings settings, TraceStart start, int times) {
        StepObserver stopAtFirstSimulatedStep = new StepObserver() {
            @Override
            public boolean replayedStep(SimulatedStep step, View view) {
                return true;
            }

            @Override
            public boolean afterStep(SimulatedStep step, View view) {
                return false;
            }
        };
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long startNanos = System.nanoTime();
        long startCpu = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < times; i++) {
            Simulator.runInMemory(settings, Simulator.Options.of(settings).withStart(start)
                    .withObserver(stopAtFirstSimulatedStep));
        }
        return new double[] {(System.nanoTime() - startNanos) / 1e6 / times,
                (threads.getCurrentThreadCpuTime() - startCpu) / 1e6 / times};
    }

    private ObjectNode paths(SimulationSettings settings, Optional<TraceStart> start) {
        ExploreSettings explore = ExploreSettings.builder().strategy(Strategy.RANDOM).seed(1).maxPaths(PATHS).workers(1)
                .faults(new FaultBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, 0)).build();
        Explorer.Options options = Explorer.Options.defaults();
        if (start.isPresent()) {
            options = options.withStart(start.get());
        }
        ExploreReport report = Explorer.start(settings, explore, options).run();
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("paths", report.paths());
        node.put("steps", report.steps());
        node.put("seconds", Results.round(report.elapsed().toNanos() / 1e9));
        node.put("paths_per_s", Results.round(report.pathsPerSecond()));
        node.put("paths_per_cpu_s", Results.round(report.paths() / Math.max(1e-9, report.cpu().toNanos() / 1e9)));
        workspace.progress().say("explore from %s: %d paths, %d steps in %.2f s (%.1f paths/s)",
                start.isPresent() ? "the recorded state at the half" : "boot", report.paths(), report.steps(),
                report.elapsed().toNanos() / 1e9, report.pathsPerSecond());
        return node;
    }
}
