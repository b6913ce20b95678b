package dev.deja.examples.lockserver;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.random.RandomGenerator;

/**
 * An {@link Env} for driving one lock-service node by hand: it keeps what the node sent and the timers it set, and
 * its random draws come from a script ({@code nextInt}, {@code nextDouble} and {@code nextLong(from, to)} values
 * in the order the node draws them).
 */
final class FakeEnv implements Env {
    record Sent(NodeId to, Object message) {
    }

    record Timer(TimerId id, Duration delay, Object tag) {
    }

    private final NodeId self;
    private final List<NodeId> peers;
    private final Map<String, String> args;
    private final Queue<Number> draws = new ArrayDeque<>();
    final List<Sent> sent = new ArrayList<>();
    final List<Timer> timers = new ArrayList<>();
    private long nextTimer;

    FakeEnv(String self, List<String> peers, Map<String, String> args) {
        this.self = new NodeId(self);
        this.peers = peers.stream().map(NodeId::new).toList();
        this.args = Map.copyOf(args);
    }

    /** Queues the values of the next random draws. */
    FakeEnv draws(Number... values) {
        draws.addAll(List.of(values));
        return this;
    }

    /** What the node sent since the last call, emptied. */
    List<Sent> takeSent() {
        List<Sent> out = List.copyOf(sent);
        sent.clear();
        return out;
    }

    @Override public NodeId self() { return self; }
    @Override public List<NodeId> peers() { return peers; }
    @Override public Map<String, String> args() { return args; }
    @Override public int incarnation() { return 1; }
    @Override public void send(NodeId to, Object message) { sent.add(new Sent(to, message)); }
    @Override public void cancelTimer(TimerId timer) { timers.removeIf(t -> t.id().equals(timer)); }
    @Override public long nowMillis() { return 0; }
    @Override public void log(String line) { }

    @Override
    public TimerId setTimer(Duration delay, Object tag) {
        TimerId id = new TimerId(nextTimer++);
        timers.add(new Timer(id, delay, tag));
        return id;
    }

    @Override
    public Storage storage() {
        return new Storage() {
            @Override public Optional<byte[]> read(String key) { return Optional.empty(); }
            @Override public void write(String key, byte[] value) { }
            @Override public void sync() { }
        };
    }

    @Override
    public RandomGenerator random() {
        return new RandomGenerator() {
            @Override public long nextLong() { return next().longValue(); }
            @Override public int nextInt(int bound) { return next().intValue(); }
            @Override public double nextDouble() { return next().doubleValue(); }
            @Override public long nextLong(long origin, long bound) { return next().longValue(); }
        };
    }

    private Number next() {
        Number value = draws.poll();
        if (value == null) {
            throw new IllegalStateException("the node drew a random value the test did not script");
        }
        return value;
    }
}
