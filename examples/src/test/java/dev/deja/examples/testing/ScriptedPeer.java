package dev.deja.examples.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;

/**
 * A cluster node of a {@link OneNodeRuns} scenario that plays the part the test wrote for it: it sends what its
 * {@link OneNodeRuns.Peer} says at start and in answer to each message, and reports every message it receives to
 * the scenario. It runs on the simulator like any node; its behaviour comes from the scenario running on this
 * thread.
 */
public final class ScriptedPeer implements Node {
    private OneNodeRuns.Peer peer;
    private OneNodeRuns.Scenario scenario;

    @Override
    public void onStart(Env env) {
        scenario = OneNodeRuns.current();
        peer = scenario.peer(env.self());
        for (OneNodeRuns.Send send : peer.onStart()) {
            env.send(send.to(), send.message());
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        scenario.received(env.self(), from, message);
        for (OneNodeRuns.Send send : peer.onMessage(from, message)) {
            env.send(send.to(), send.message());
        }
    }
}
