package dev.deja.bench;

import java.time.Duration;
import java.util.List;

/**
 * How much to measure: the number of interleaved rounds and the size of every workload. {@link #quick()} takes
 * about a minute on two cores, {@link #full()} up to about ten.
 *
 * @param name                 shown in the results ({@code quick}, {@code full})
 * @param rounds               rounds of every comparison (each runs all its sides once, interleaved)
 * @param warmUp               how long the recording benchmark loads each cluster once before the rounds (JIT)
 * @param sliceRamp            how long the recording benchmark loads a cluster before it starts counting
 * @param sliceMeasure         how long it counts completed operations in each round
 * @param replayEntries        trace entries (at least) of the long simulated trace that is replayed
 * @param growthEntries        trace lengths, in entries, at which the bytes per event are measured
 * @param checkSteps           simulated steps (deliveries and timers) of each example's trace for the checker
 * @param simulationSteps      steps of each simulated run in the simulation benchmark
 * @param viewerFrames         frames rendered while panning in the viewer benchmark
 */
public record BenchPlan(String name, int rounds, Duration warmUp, Duration sliceRamp, Duration sliceMeasure, long replayEntries,
                        List<Long> growthEntries, long checkSteps, long simulationSteps, int viewerFrames) {
    /** The fewest rounds a comparison may run: fewer cannot show how noisy the machine is. */
    public static final int MIN_ROUNDS = 5;

    public BenchPlan {
        growthEntries = List.copyOf(growthEntries);
        if (rounds < 1 || replayEntries < 1 || checkSteps < 1 || simulationSteps < 1 || viewerFrames < 1) {
            throw new IllegalArgumentException("rounds and sizes must be positive");
        }
        if (warmUp.isNegative() || sliceRamp.isNegative() || sliceMeasure.isNegative() || sliceMeasure.isZero()) {
            throw new IllegalArgumentException("the measuring slice must be positive and its ramp not negative");
        }
    }

    /**
     * Rounds of the one-shot {@code deja check} commands of the check section, each a process of its own (six per
     * round and example, three of them starting a JVM and Python anew): one in the quick plan, three in the full one.
     */
    public int oneShotRounds() {
        return "quick".equals(name) ? 1 : Math.min(3, rounds);
    }

    /** About a minute on two quiet cores; the replayed trace is shorter than a million entries. */
    public static BenchPlan quick() {
        return new BenchPlan("quick", MIN_ROUNDS, Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(500), 200_000,
                List.of(10_000L, 100_000L), 3_000, 30_000, 60);
    }

    /** The published figures: about ten minutes on two quiet cores. */
    public static BenchPlan full() {
        return new BenchPlan("full", 7, Duration.ofSeconds(8), Duration.ofMillis(500), Duration.ofSeconds(3), 1_000_000,
                List.of(10_000L, 100_000L, 1_000_000L), 50_000, 200_000, 600);
    }
}
