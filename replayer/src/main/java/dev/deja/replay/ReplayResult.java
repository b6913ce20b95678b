package dev.deja.replay;

import java.time.Duration;
import java.util.List;

/**
 * How a replay went.
 *
 * @param entries       merged entries processed (the listener positions 0 to {@code entries - 1})
 * @param handlerCalls  of those, the entries that started a handler call
 * @param nodes         how many nodes were replayed
 * @param divergences   every divergence found, in the order found (at most one unless {@code keepGoing})
 * @param elapsed       wall-clock time of the replay
 */
public record ReplayResult(long entries, long handlerCalls, int nodes, List<Divergence> divergences, Duration elapsed) {
    public ReplayResult {
        divergences = List.copyOf(divergences);
    }

    /** Merged entries per second of wall-clock time. */
    public double entriesPerSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? entries : entries / seconds;
    }
}
