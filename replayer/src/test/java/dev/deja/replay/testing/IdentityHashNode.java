package dev.deja.replay.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A node that iterates a {@link HashMap} keyed by objects with identity hash codes, whose order differs from
 * one JVM (or one allocation) to the next: a replay must report the send that reveals the order.
 */
public final class IdentityHashNode implements Node {
    /** The labels of the map's keys in iteration order. */
    public record Order(List<Integer> labels) {
    }

    /** A key without equals/hashCode, so it hashes by identity. */
    private static final class Peer {
        final int label;

        Peer(int label) {
            this.label = label;
        }
    }

    private static final int KEYS = 64;

    @Override
    public void onStart(Env env) {
        env.send(env.self(), "hello"); // a deterministic send first
        Map<Peer, Boolean> peers = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            peers.put(new Peer(i), true);
        }
        List<Integer> order = new ArrayList<>();
        for (Peer peer : peers.keySet()) {
            order.add(peer.label);
        }
        env.send(env.self(), new Order(order));
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
    }
}
