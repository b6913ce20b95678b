package dev.deja.explore.counter;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;

/** Adds one to the {@link CounterServer} named by its {@code server} argument: reads the value, then writes it plus one. */
public final class CounterWriter implements Node {
    public boolean done;

    @Override
    public void onStart(Env env) {
        env.send(new NodeId(env.args().get("server")), "read");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        String text = (String) message;
        if (text.startsWith("value:") && !done) {
            done = true;
            env.send(from, "write:" + (Integer.parseInt(text.substring("value:".length())) + 1));
        }
    }
}
