package dev.deja.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * A small test protocol that uses every part of the API: every 20 ms it pings a random peer with the time
 * it read; peers answer with a pong; a durable counter survives restarts.
 */
public final class GossipNode implements Node {
    /** A ping carrying the sender's counter and clock reading. */
    public record Ping(long counter, long sentMillis) {
    }

    /** The answer to a ping. */
    public record Pong(long counter) {
    }

    private long counter;
    private long pongs;

    @Override
    public void onStart(Env env) {
        counter = env.storage().read("counter").map(bytes -> ByteBuffer.wrap(bytes).getLong()).orElse(0L);
        env.log("started incarnation " + env.incarnation() + " with counter " + counter);
        env.setTimer(Duration.ofMillis(20), "tick");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case Ping ping -> env.send(from, new Pong(ping.counter()));
            case Pong pong -> {
                if (++pongs == 10) {
                    env.log("received 10 pongs"); // tests wait for this line instead of sleeping
                }
            }
            default -> env.log("unexpected " + message);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        List<NodeId> peers = env.peers();
        NodeId peer = peers.get(env.random().nextInt(peers.size()));
        env.send(peer, new Ping(++counter, env.nowMillis()));
        if (counter % 10 == 0) {
            env.storage().write("counter", ByteBuffer.allocate(8).putLong(counter).array());
            env.storage().sync();
        }
        env.setTimer(Duration.ofMillis(20), "tick");
    }
}
