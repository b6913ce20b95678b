package dev.deja.runtime;

import dev.deja.node.Node;

/**
 * A client that drives an example's cluster during a deployment, such as one proposing values to Paxos.
 * It is a {@link Node} like any other (so it talks to the cluster through the same runtime) but it is not
 * recorded: the nodes' logs hold the contents of the messages it sends them.
 */
public interface WorkloadDriver extends Node {
    /**
     * Whether the workload is done and the deployment may stop before its duration ends. Called from a
     * thread other than the handler thread, so implementations keep the answer in a volatile field.
     */
    boolean finished();
}
