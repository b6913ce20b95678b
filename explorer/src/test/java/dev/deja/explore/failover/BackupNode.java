package dev.deja.explore.failover;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;

/**
 * The backup: takes over as primary when no heartbeat came for 150 ms, without asking the primary. Lost messages
 * are not enough to get there in a short run, a crash of the primary is a failover, but a partition that cuts off
 * one of the two for a while makes two primaries at once (split brain): a bug only a partition reaches.
 */
public final class BackupNode implements Node {
    public boolean primary;
    public long lastBeatMillis;

    @Override
    public void onStart(Env env) {
        lastBeatMillis = env.nowMillis();
        env.setTimer(Duration.ofMillis(50), "check");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        lastBeatMillis = env.nowMillis();
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        if (env.nowMillis() - lastBeatMillis > 150) {
            primary = true;
        } else {
            env.setTimer(Duration.ofMillis(50), "check");
        }
    }
}
