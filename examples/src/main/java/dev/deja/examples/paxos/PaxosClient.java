package dev.deja.examples.paxos;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Paxos workload: proposes {@code v-NODE} to every node, then polls every node that has not reported a
 * decision until all have.
 */
public final class PaxosClient implements WorkloadDriver {
    private static final Duration QUERY_INTERVAL = Duration.ofMillis(500);
    private static final String QUERY_TAG = "query";

    // Written on the handler thread, read by the deployment's thread through decisions() and finished().
    private final Map<NodeId, String> decisions = new ConcurrentHashMap<>();
    private volatile boolean finished;

    public PaxosClient() {
    }

    @Override
    public void onStart(Env env) {
        for (NodeId node : env.peers()) {
            env.send(node, new Propose("v-" + node));
        }
        env.setTimer(QUERY_INTERVAL, QUERY_TAG);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Decided decided) {
            String previous = decisions.putIfAbsent(from, decided.value());
            if (previous != null && !previous.equals(decided.value())) {
                env.log("AGREEMENT VIOLATED: " + from + " reported " + decided.value() + " after " + previous);
            }
            if (decisions.keySet().containsAll(env.peers())) {
                if (!finished) {
                    env.log("every node decided: " + decisions());
                }
                finished = true;
            }
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (finished) {
            return;
        }
        for (NodeId node : env.peers()) {
            if (!decisions.containsKey(node)) {
                env.send(node, new Query());
            }
        }
        env.setTimer(QUERY_INTERVAL, QUERY_TAG);
    }

    @Override
    public boolean finished() {
        return finished;
    }

    /** The value each node reported as decided so far, by node id. */
    public Map<NodeId, String> decisions() {
        return Collections.unmodifiableMap(new TreeMap<>(decisions));
    }
}
