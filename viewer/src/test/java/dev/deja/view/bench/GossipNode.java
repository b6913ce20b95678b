package dev.deja.view.bench;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;

/** A node that never stops talking: every few milliseconds it gossips to a random peer, which often answers. */
public final class GossipNode implements Node {
    /** A rumour with a counter. */
    public record Gossip(long number, String rumour) {
    }

    /** An answer to a rumour. */
    public record Ack(long number) {
    }

    private long sent;
    private long heard;

    @Override
    public void onStart(Env env) {
        env.setTimer(Duration.ofMillis(1 + env.random().nextInt(10)), "gossip");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Gossip gossip) {
            heard++;
            if (env.random().nextInt(2) == 0) {
                env.send(from, new Ack(gossip.number()));
            }
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        NodeId peer = env.peers().get(env.random().nextInt(env.peers().size()));
        env.send(peer, new Gossip(++sent, "heard " + heard));
        env.setTimer(Duration.ofMillis(5 + env.random().nextInt(10)), "gossip");
    }
}
