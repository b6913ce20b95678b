package dev.deja.explore;

import java.time.Duration;

/**
 * One exploration, prepared by {@link Explorer#start}: {@link #run()} blocks until it ends; {@link #counters()} may
 * be read from any other thread meanwhile, for a progress display.
 */
public interface Exploration {
    /** Runs every path the settings allow and returns what was found. */
    ExploreReport run();

    /** The figures so far. */
    Counters counters();

    /** Live figures for a progress display. */
    record Counters(long paths, long steps, long distinctStates, long deepestPath, long violatingPaths, Duration elapsed) {
    }
}
