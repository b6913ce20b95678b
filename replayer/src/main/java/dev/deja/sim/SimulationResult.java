package dev.deja.sim;

import java.time.Duration;

/**
 * What a simulated run did.
 *
 * @param steps          deliveries and timer firings executed (of every node, the driver included)
 * @param entries        trace entries written (recorded nodes only)
 * @param virtualMillis  virtual time that passed
 * @param crashes        node crashes injected
 * @param dropped        messages lost (by drop probability, partition or a node being down)
 * @param duplicated     messages delivered twice
 * @param ending         why the run stopped ({@code STOPPED}: a {@link StepObserver} ended it)
 * @param elapsed        wall-clock time the simulation took
 */
public record SimulationResult(long steps, long entries, long virtualMillis, long crashes, long dropped,
                               long duplicated, Ending ending, Duration elapsed) {
    /** Why a run stopped. */
    public enum Ending { DRIVER_FINISHED, STEP_LIMIT, TIME_LIMIT, QUIESCENT, STOPPED }

    /** Simulated steps per wall-clock second. */
    public double stepsPerSecond() {
        return steps / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }
}
