package dev.deja.bench;

import dev.deja.bench.internal.BenchRunner;
import dev.deja.bench.internal.Progress;
import java.io.PrintStream;

/**
 * Deja's benchmarks: recording overhead, trace size, replay speed, checking cost, simulation speed and the viewer,
 * each comparison run as interleaved rounds in one run and reported as median, minimum and maximum. What
 * {@code deja bench} runs.
 *
 * <pre>{@code
 * BenchReport report = Benchmarks.run(new BenchSettings(BenchPlan.quick(), BenchSettings.allSections(),
 *         Path.of("/tmp/bench-work"), Path.of(".")), System.err);
 * report.write(Path.of("bench/results/latest.json"));
 * System.out.print(report.table());
 * }</pre>
 *
 * <p>Runs on the calling thread; it starts node processes on loopback and uses both cores, so nothing else
 * should run alongside if the figures are to mean anything.
 */
public final class Benchmarks {
    private Benchmarks() {
    }

    /** Runs the benchmarks {@code settings} describe; a line of progress per step goes to {@code progress}. */
    public static BenchReport run(BenchSettings settings, PrintStream progress) throws Exception {
        return new BenchReport(BenchRunner.run(settings, new Progress(progress)));
    }
}
