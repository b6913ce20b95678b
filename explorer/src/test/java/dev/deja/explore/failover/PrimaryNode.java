package dev.deja.explore.failover;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;

/** The primary: sends a heartbeat to the backup named by its {@code backup} argument every 50 ms, and stays primary. */
public final class PrimaryNode implements Node {
    public boolean primary = true;

    @Override
    public void onStart(Env env) {
        env.setTimer(Duration.ofMillis(50), "beat");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        env.send(new NodeId(env.args().get("backup")), "beat");
        env.setTimer(Duration.ofMillis(50), "beat");
    }
}
