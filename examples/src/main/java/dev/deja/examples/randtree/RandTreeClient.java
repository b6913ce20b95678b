package dev.deja.examples.randtree;

import dev.deja.examples.randtree.TreeMessage.Status;
import dev.deja.examples.randtree.TreeMessage.StatusQuery;
import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The RandTree workload: the nodes build the tree by themselves, so the client only watches. It asks every node
 * for its view every {@value #POLL_INTERVAL_MILLIS} ms, logs the tree whenever it changes, and is finished once
 * the views have described one complete, consistent tree for {@value #STABLE_MILLIS} ms.
 */
public final class RandTreeClient implements WorkloadDriver {
    static final long POLL_INTERVAL_MILLIS = 200;
    static final long STABLE_MILLIS = 3000;
    private static final String POLL_TAG = "poll";

    private final Map<NodeId, Status> statuses = new TreeMap<>();
    private String lastTree = "";
    private long consistentSinceMillis = -1;
    // Written on the handler thread, read by the deployment's thread.
    private volatile boolean finished;

    public RandTreeClient() {
    }

    @Override
    public void onStart(Env env) {
        env.setTimer(Duration.ofMillis(POLL_INTERVAL_MILLIS), POLL_TAG);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Status status) {
            statuses.put(from, status);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (finished) {
            return;
        }
        Map<NodeId, TreeViews.View> views = TreeViews.ofStatuses(statuses);
        String tree = TreeViews.describe(views);
        if (!tree.equals(lastTree)) {
            env.log("tree: " + tree);
            lastTree = tree;
        }
        long now = env.nowMillis();
        if (views.keySet().containsAll(env.peers()) && TreeViews.consistent(views)) {
            if (consistentSinceMillis < 0) {
                consistentSinceMillis = now;
            } else if (now - consistentSinceMillis >= STABLE_MILLIS) {
                env.log("the tree has been complete and consistent for " + STABLE_MILLIS + " ms: " + tree);
                finished = true;
                return;
            }
        } else {
            consistentSinceMillis = -1;
        }
        statuses.clear();
        for (NodeId node : env.peers()) {
            env.send(node, new StatusQuery());
        }
        env.setTimer(Duration.ofMillis(POLL_INTERVAL_MILLIS), POLL_TAG);
    }

    @Override
    public boolean finished() {
        return finished;
    }
}
