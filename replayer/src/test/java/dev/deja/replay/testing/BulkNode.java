package dev.deja.replay.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.SplittableRandom;

/**
 * Bounces a large incompressible message back and forth, so that a short run makes a trace far bigger than a
 * small heap. The bytes come from a generator seeded with the hop count, not from the node's inputs, so they
 * replay identically.
 */
public final class BulkNode implements Node {
    /** Message size in bytes. */
    public static final int PAYLOAD_BYTES = 256 * 1024;

    /** One hop of the bounce; {@code bytes} is random filler. */
    public record Bulk(long hop, byte[] bytes) {
    }

    private long lastHop = -1;

    @Override
    public void onStart(Env env) {
        if (env.self().value().equals("n1")) {
            env.send(env.peers().getFirst(), bulk(0));
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Bulk bulk) {
            lastHop = bulk.hop(); // keep nothing of the payload: the point is that replay need not either
            env.send(from, bulk(bulk.hop() + 1));
        }
    }

    private static Bulk bulk(long hop) {
        byte[] bytes = new byte[PAYLOAD_BYTES];
        new SplittableRandom(hop).nextBytes(bytes);
        return new Bulk(hop, bytes);
    }

    /** The last hop this node received, for tests. */
    public long lastHop() {
        return lastHop;
    }
}
