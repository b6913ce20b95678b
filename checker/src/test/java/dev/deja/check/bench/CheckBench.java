package dev.deja.check.bench;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.internal.PythonEngine;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Measures a checked replay against a plain replay of the same trace: {@code CheckBench TRACE SCRIPT [ROUNDS]}.
 * Each round replays plainly, then checks (the first rounds include Python start-up and JIT warm-up; the
 * last ones show the steady state). Prints one line per round.
 */
public final class CheckBench {
    private CheckBench() {
    }

    private static String readScript(Path script) {
        try {
            return java.nio.file.Files.readString(script);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static void main(String[] args) {
        Path trace = Path.of(args[0]);
        if (args.length > 3) {
            // record: CheckBench TRACE SCRIPT ROUNDS SEED DROP STEPS (seven correct Paxos processes, until the step limit)
            dev.deja.sim.Simulator.run(dev.deja.examples.ExampleSimulation.settings(new dev.deja.examples.paxos.PaxosExample(),
                    7, java.util.Optional.empty()).seed(Long.parseLong(args[3])).dropProbability(Double.parseDouble(args[4]))
                    .maxSteps(Long.parseLong(args[5])).maxVirtualMillis(dev.deja.sim.SimulationSettings.UNLIMITED_VIRTUAL_MILLIS)
                    .stop(dev.deja.sim.SimulationSettings.Stop.AT_LIMIT).build(), trace);
        }
        Path script = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        System.out.println("engine: " + PythonEngine.get().getImplementationName());
        for (int round = 1; round <= rounds; round++) {
            long start = System.nanoTime();
            ReplayResult plain = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
            long plainNanos = System.nanoTime() - start;
            start = System.nanoTime();
            CheckReport report = Checker.check(trace, script, Checker.Options.defaults().withReuseHistory(false)
                    .withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
            long checkNanos = System.nanoTime() - start;
            System.out.printf(Locale.ROOT, "round %d: %d entries, %d checked events; plain replay %.3f s, checked %.3f s "
                    + "(%.1fx), %d findings%n", round, plain.entries(), report.eventsChecked(), plainNanos / 1e9,
                    checkNanos / 1e9, (double) checkNanos / plainNanos, report.violations().size());
        }
        InMemoryStateHistory history = new InMemoryStateHistory();
        Checker.check(trace, script, Checker.Options.defaults().withScriptOutput(OutputStream.nullOutputStream()), history);
        for (int round = 1; round <= rounds; round++) {
            long start = System.nanoTime();
            try (var evaluator = new dev.deja.check.internal.ScriptEvaluator(readScript(script), script.toString(),
                    java.time.Duration.ofSeconds(10), OutputStream.nullOutputStream())) {
                long loaded = System.nanoTime();
                long[] steps = {0};
                history.replayHistory(0, step -> {
                    evaluator.evaluate(step);
                    steps[0]++;
                });
                long done = System.nanoTime();
                System.out.printf(Locale.ROOT, "evaluator round %d: load %.3f s, %d steps in %.3f s (%.1f us/step)%n",
                        round, (loaded - start) / 1e9, steps[0], (done - loaded) / 1e9, (done - loaded) / 1e3 / steps[0]);
            }
        }
    }
}
