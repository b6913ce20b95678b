package dev.deja.explore.counter;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;

/**
 * A counter that answers {@code read} with its value and applies {@code write:V} blindly: two writers that both
 * read before either writes lose an update (the value ends below the number of writes). A bug of ordering alone,
 * reached only when the deliveries to the server interleave in a certain way.
 */
public final class CounterServer implements Node {
    public int value;
    public int writes;

    @Override
    public void onStart(Env env) {
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        String text = (String) message;
        if (text.equals("read")) {
            env.send(from, "value:" + value);
        } else if (text.startsWith("write:")) {
            value = Integer.parseInt(text.substring("write:".length()));
            writes++;
        }
    }
}
