package dev.deja.examples.lockserver;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;

/**
 * The node every member of a lock-service cluster runs: the node called {@code server} is the {@link LockServer},
 * every other node a {@link LockClient}. One class for both roles, because an example's cluster runs one class.
 */
public final class LockNode implements Node {
    private Node role;

    public LockNode() {
    }

    @Override
    public void onStart(Env env) {
        role = env.self().equals(LockClient.SERVER) ? new LockServer() : new LockClient();
        role.onStart(env);
    }

    /** The role this node plays, once started: a {@link LockServer} or a {@link LockClient}. */
    Node role() {
        return role;
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        role.onMessage(env, from, message);
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        role.onTimer(env, timer, tag);
    }
}
