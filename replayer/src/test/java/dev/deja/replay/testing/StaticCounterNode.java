package dev.deja.replay.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node that breaks the rules: what it sends depends on a static counter the recorder cannot see, so a
 * replay in the same JVM sends different content.
 */
public final class StaticCounterNode implements Node {
    /** The counter that is not an input. */
    public record Count(long value) {
    }

    private static final AtomicLong COUNTER = new AtomicLong();

    @Override
    public void onStart(Env env) {
        env.send(env.self(), new Count(0));
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Count count && count.value() < 3) {
            env.random().nextLong();
            env.send(env.self(), new Count(count.value() + 1 + COUNTER.getAndIncrement()));
        }
    }
}
