package demo;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;

/** The workload: sends {@value #OPERATIONS} operations, one every 50 ms, each to a node chosen at random. */
public final class CounterClient implements WorkloadDriver {
    static final int OPERATIONS = 100;
    private long sent;
    private volatile boolean finished;

    @Override
    public void onStart(Env env) {
        env.setTimer(Duration.ofMillis(50), "next");
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        NodeId to = env.peers().get(env.random().nextInt(env.peers().size()));
        env.send(to, new Add(++sent));
        if (sent < OPERATIONS) {
            env.setTimer(Duration.ofMillis(50), "next");
        } else {
            finished = true;
        }
    }

    @Override
    public boolean finished() {
        return finished;
    }
}
