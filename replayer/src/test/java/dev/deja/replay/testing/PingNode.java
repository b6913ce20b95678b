package dev.deja.replay.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Exercises every input a node can observe: messages, timers, clock, random draws and storage. */
public final class PingNode implements Node {
    /** The one message. */
    public record Ping(long hops, long sentAtMillis) {
    }

    private long received;
    private int ticks;

    @Override
    public void onStart(Env env) {
        long restored = env.storage().read("received").map(b -> Long.parseLong(new String(b, StandardCharsets.UTF_8)))
                .orElse(0L);
        received = restored;
        env.setTimer(Duration.ofMillis(50), "tick");
        for (NodeId peer : env.peers()) {
            env.send(peer, new Ping(0, env.nowMillis()));
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Ping ping) {
            received++;
            env.storage().write("received", Long.toString(received).getBytes(StandardCharsets.UTF_8));
            env.storage().sync();
            if (ping.hops() < 3 && env.random().nextInt(4) != 0) {
                env.send(from, new Ping(ping.hops() + 1, env.nowMillis()));
            }
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (++ticks < 5) {
            NodeId peer = env.peers().get(env.random().nextInt(env.peers().size()));
            env.send(peer, new Ping(0, env.nowMillis()));
            env.setTimer(Duration.ofMillis(50 + env.random().nextInt(20)), "tick");
        }
    }

    /** How many pings this node received, for listeners. */
    public long received() {
        return received;
    }
}
