package dev.deja.replay.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;

/**
 * A node that reads {@code System.nanoTime()} behind the runtime's back and lets it decide what it sends, as
 * a user's node might by mistake: a replay must report its first send as a divergence.
 */
public final class NanoTimeNode implements Node {
    /** A message whose content came from the hidden clock. */
    public record Stamp(long nanos) {
    }

    @Override
    public void onStart(Env env) {
        env.random().nextLong(); // an honest input first, so the divergence is not at seq 1
        env.send(env.self(), new Stamp(System.nanoTime()));
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
    }
}
