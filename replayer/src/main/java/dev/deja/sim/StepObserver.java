package dev.deja.sim;

import java.util.List;
import java.util.Map;
import dev.deja.node.NodeId;

/**
 * Watches a simulated run step by step, on the run's thread, and may end it: the explorer evaluates predicates,
 * hashes states and tracks happens-before through one.
 */
public interface StepObserver {
    /** After each step; returns false to end the run there (its ending is then {@code STOPPED}). */
    boolean afterStep(SimulatedStep step, View view);

    /**
     * When the run continues a recorded trace ({@link TraceStart}): after each handler call replay ran to rebuild the
     * state, before the first simulated step; {@code step.step()} counts the recording's handler calls from 0 and the
     * simulated steps go on from there. The view holds the replayed nodes and nothing pending. Returns false to end
     * the run. By default the same as {@link #afterStep}.
     */
    default boolean replayedStep(SimulatedStep step, View view) {
        return afterStep(step, view);
    }

    /**
     * After a new run booted its cluster, before step 0: the first start handler call of every recorded node, in boot
     * order ({@code step()} -1 for each: no choice picked them, so they are not steps). Returns false to end the run
     * there. By default ignored.
     */
    default boolean booted(List<SimulatedStep> starts, View view) {
        return true;
    }

    /** What an observer may read of the run between steps. */
    interface View {
        /** The live object of every node that is up, by id, in id order (the driver included). */
        Map<NodeId, Object> liveNodes();

        /** Every pending event (deliveries, timers, restarts), in due order. */
        List<ChoicePoint.Enabled> pending();

        /** Virtual milliseconds since the run began. */
        long virtualMillis();
    }

    /** Watches nothing and never ends a run. */
    StepObserver NONE = (step, view) -> true;
}
