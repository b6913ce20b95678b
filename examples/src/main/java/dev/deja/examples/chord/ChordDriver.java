package dev.deja.examples.chord;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The paper's Chord scenario: every node is told at once to join through the first node (by sorted id), one
 * node is told to fail once the ring has stabilized ({@link #FAIL_AT}), and the run ends {@link #END_AT} after
 * the start. The failing node is the last by sorted id ({@code n9} of {@code n1..n10}); a one-node cluster
 * keeps its node.
 */
public final class ChordDriver implements WorkloadDriver {
    /** When, after the workload starts, one node fails. */
    public static final Duration FAIL_AT = Duration.ofSeconds(3);
    /** When the workload is done. */
    public static final Duration END_AT = Duration.ofSeconds(6);

    private static final String FAIL_TAG = "fail";
    private static final String END_TAG = "end";

    private volatile boolean finished;
    private List<NodeId> nodes = List.of();

    public ChordDriver() {
    }

    /** The node that fails in a cluster of {@code nodes}, if any: the last by sorted id, never the bootstrap. */
    public static java.util.Optional<NodeId> failingNode(List<NodeId> nodes) {
        List<NodeId> sorted = nodes.stream().sorted().toList();
        return sorted.size() < 2 ? java.util.Optional.empty() : java.util.Optional.of(sorted.getLast());
    }

    /** The node every other joins through: the first by sorted id. */
    public static NodeId bootstrap(List<NodeId> nodes) {
        return nodes.stream().sorted().findFirst().orElseThrow();
    }

    @Override
    public void onStart(Env env) {
        nodes = new ArrayList<>(env.peers());
        NodeId bootstrap = bootstrap(nodes);
        for (NodeId node : nodes.stream().sorted().toList()) {
            env.send(node, new JoinRing(bootstrap));
        }
        env.setTimer(FAIL_AT, FAIL_TAG);
        env.setTimer(END_AT, END_TAG);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (FAIL_TAG.equals(tag)) {
            failingNode(nodes).ifPresent(node -> {
                env.log("telling " + node + " to fail");
                env.send(node, new Fail());
            });
        } else if (END_TAG.equals(tag)) {
            finished = true;
        }
    }

    @Override
    public boolean finished() {
        return finished;
    }
}
