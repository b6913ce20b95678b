package dev.deja.sim;

import dev.deja.node.NodeId;
import dev.deja.trace.TraceEvent;

/**
 * One step of a simulated run, as a {@link StepObserver} sees it right after the handler returned.
 *
 * @param step        0-based index of the step in the run (deliveries, timer firings and restarts whose handler ran)
 * @param event       the pending event that ran
 * @param recorded    whether the node is a recorded cluster node (not the workload driver)
 * @param entry       the first entry the handler recorded (its receive, timer, start or crash entry); {@code null}
 *                    for the driver, which records nothing
 * @param nodeObject  the node's live object after the handler, for state extraction; read it on this thread only
 */
public record SimulatedStep(long step, ChoicePoint.Enabled event, boolean recorded, TraceEvent entry, Object nodeObject) {
    /** The node that handled the step. */
    public NodeId node() {
        return event.node();
    }
}
