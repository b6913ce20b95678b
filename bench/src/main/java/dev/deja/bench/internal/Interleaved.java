package dev.deja.bench.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the sides of a comparison in turn, round after round (A B C, A B C, ...), so that a slow spell of a busy
 * machine hits every side alike and every round yields one ratio. An optional warm-up round runs each side once
 * unmeasured first (JIT compilation, caches, GraalPy's compiler).
 */
final class Interleaved {
    /** One side of a comparison: runs once and returns its measurement. */
    @FunctionalInterface
    interface Side {
        double measure() throws Exception;
    }

    /** When each measured side starts. */
    enum Start {
        /** Right after the side before. */
        AT_ONCE,
        /**
         * Once this JVM is quiet (see {@link Quiet}): the background compilation that the side before set off is over,
         * as it is when a user runs a command after editing a script for some seconds.
         */
        QUIET
    }

    private Interleaved() {
    }

    /**
     * Runs a warm-up round (if {@code warmUp}) and then {@code rounds} measured rounds of every side in the map's
     * order, each side starting at once, and returns each side's samples in round order.
     */
    static Map<String, List<Double>> run(String what, int rounds, boolean warmUp, Map<String, Side> sides,
                                        Progress progress) throws Exception {
        return run(what, rounds, warmUp, Start.AT_ONCE, sides, progress);
    }

    /** As {@link #run(String, int, boolean, Map, Progress)}, each measured side starting as {@code start} says. */
    static Map<String, List<Double>> run(String what, int rounds, boolean warmUp, Start start, Map<String, Side> sides,
                                        Progress progress) throws Exception {
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        sides.keySet().forEach(name -> samples.put(name, new ArrayList<>()));
        if (warmUp) {
            for (Side side : sides.values()) {
                side.measure();
            }
            progress.say("%s: warm-up round done", what);
        }
        for (int round = 1; round <= rounds; round++) {
            Map<String, Double> thisRound = new LinkedHashMap<>();
            for (var side : sides.entrySet()) {
                if (start == Start.QUIET) {
                    Quiet.await(null);
                }
                double value = side.getValue().measure();
                samples.get(side.getKey()).add(value);
                thisRound.put(side.getKey(), value);
            }
            progress.say("%s: round %d/%d: %s", what, round, rounds, thisRound.entrySet().stream()
                    .map(e -> e.getKey() + " " + format(e.getValue())).collect(Collectors.joining(", ")));
        }
        return samples;
    }

    private static String format(double value) {
        return Math.abs(value) >= 100 ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.3f", value);
    }
}
