package dev.deja.examples.randtree;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/** An {@link Env} for driving one node by hand: it keeps what the node sent and which timers are pending. */
final class FakeEnv implements Env {
    record Sent(NodeId to, Object message) {
    }

    private final NodeId self;
    private final List<NodeId> peers;
    private final Map<String, String> args;
    private final RandomGenerator random = new SplittableRandom(1);
    final List<Sent> sent = new ArrayList<>();
    final Map<TimerId, Object> timers = new LinkedHashMap<>();
    long nowMillis;
    private long nextTimer;

    FakeEnv(String self, List<String> peers, Map<String, String> args) {
        this.self = new NodeId(self);
        this.peers = peers.stream().map(NodeId::new).toList();
        this.args = args;
    }

    /** The pending timer with this tag; fails if there is none. */
    TimerId timer(String tag) {
        return timers.entrySet().stream().filter(e -> e.getValue().equals(tag)).map(Map.Entry::getKey).findFirst()
                .orElseThrow(() -> new AssertionError("no pending " + tag + " timer among " + timers));
    }

    /** Fires the pending timer with this tag on {@code node}. */
    void fire(RandTreeNode node, String tag) {
        TimerId timer = timer(tag);
        timers.remove(timer);
        node.onTimer(this, timer, tag);
    }

    /** The messages of this type sent so far. */
    <T> List<T> sent(Class<T> type) {
        return sent.stream().map(Sent::message).filter(type::isInstance).map(type::cast).toList();
    }

    @Override public NodeId self() { return self; }
    @Override public List<NodeId> peers() { return peers; }
    @Override public Map<String, String> args() { return args; }
    @Override public int incarnation() { return 1; }
    @Override public void send(NodeId to, Object message) { sent.add(new Sent(to, message)); }
    @Override public long nowMillis() { return nowMillis; }
    @Override public RandomGenerator random() { return random; }
    @Override public Storage storage() { throw new UnsupportedOperationException("RandTree keeps no durable state"); }
    @Override public void log(String line) { }

    @Override
    public TimerId setTimer(Duration delay, Object tag) {
        TimerId timer = new TimerId(nextTimer++);
        timers.put(timer, tag);
        return timer;
    }

    @Override
    public void cancelTimer(TimerId timer) {
        timers.remove(timer);
    }
}
