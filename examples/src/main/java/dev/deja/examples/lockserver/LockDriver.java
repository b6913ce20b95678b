package dev.deja.examples.lockserver;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.runtime.WorkloadDriver;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock-service workload's referee: once every node is up it tells each client to {@link Start} its lock users
 * (who then drive themselves), and it ends the run when every client has reported that all its users finished.
 * With a livelock that never happens, and the run ends at its time limit.
 */
public final class LockDriver implements WorkloadDriver {
    // Written on the handler thread, read by the deployment's thread through finished() and progress().
    private final Map<NodeId, ClientStatus> clients = new ConcurrentHashMap<>();
    private volatile boolean finished;

    public LockDriver() {
    }

    @Override
    public void onStart(Env env) {
        for (NodeId node : env.peers()) {
            if (!node.equals(LockClient.SERVER)) {
                env.send(node, new Start());
            }
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (!(message instanceof ClientStatus status)) {
            env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
            return;
        }
        clients.put(from, status);
        long clientCount = env.peers().stream().filter(id -> !id.equals(LockClient.SERVER)).count();
        if (!finished && clients.size() == clientCount && clients.values().stream().allMatch(ClientStatus::done)) {
            env.log("every lock user of the " + clientCount + " clients finished");
            finished = true;
        }
    }

    @Override
    public boolean finished() {
        return finished;
    }

    /** The latest progress each client reported, by client id. */
    public Map<NodeId, ClientStatus> progress() {
        return new TreeMap<>(clients);
    }
}
