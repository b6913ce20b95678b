package dev.deja.examples.testing;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * A test harness, not the simulator: runs nodes in one thread on virtual time, deterministically for a seed.
 *
 * <p>The seeded random decides everything: which messages are lost, each message's delay (so which pending
 * message or timer runs next, and how messages reorder), the nodes' own random draws, and crash-restarts.
 */
public final class SimCluster {
    /**
     * How hostile the network is.
     *
     * @param dropProbability    chance that a message is lost
     * @param maxDelayMillis     a delivered message takes 1 to this many milliseconds
     * @param slowProbability    chance that a delivered message instead takes up to {@code slowDelayMillis}
     * @param restartProbability chance, before each event, that a random node crashes and restarts at once
     */
    public record Network(double dropProbability, int maxDelayMillis, double slowProbability, int slowDelayMillis,
                   double restartProbability) {
    }

    /** A message in flight ({@code timer} null) or a timer of the incarnation {@code timerEnv}. */
    private record Pending(long dueMillis, long sequence, NodeId to, NodeId from, Object message, SimEnv timerEnv,
                           TimerId timer) {
    }

    private final SplittableRandom random;
    private final Network network;
    private final Map<NodeId, Supplier<? extends Node>> factories = new TreeMap<>();
    private final Map<NodeId, Node> nodes = new TreeMap<>();
    private final Map<NodeId, SimEnv> envs = new TreeMap<>();
    private final Map<NodeId, SimStorage> storages = new TreeMap<>();
    private final List<NodeId> serverIds = new ArrayList<>();
    private final PriorityQueue<Pending> queue = new PriorityQueue<>(
            Comparator.comparingLong(Pending::dueMillis).thenComparingLong(Pending::sequence));
    private final List<String> logLines = new ArrayList<>();
    private long nowMillis;
    private long nextSequence;
    private BiConsumer<NodeId, Node> observer = (id, node) -> { };

    public SimCluster(long seed, Network network) {
        this.random = new SplittableRandom(seed);
        this.network = network;
    }

    /** Adds a cluster node (every server is every other server's peer). */
    public SimCluster server(String id, Supplier<? extends Node> factory) {
        serverIds.add(new NodeId(id));
        return client(id, factory);
    }

    /** Adds a client: addressable but nobody's peer; its peers are all servers. */
    public SimCluster client(String id, Supplier<? extends Node> factory) {
        factories.put(new NodeId(id), factory);
        return this;
    }

    /** Called after every handler with the node that ran it. */
    public SimCluster observe(BiConsumer<NodeId, Node> observer) {
        this.observer = observer;
        return this;
    }

    /** Starts every node, servers first. */
    public SimCluster start(Map<String, String> serverArgs) {
        serverIds.sort(null);
        List<NodeId> clients = factories.keySet().stream().filter(id -> !serverIds.contains(id)).toList();
        serverIds.forEach(id -> boot(id, 1, serverArgs));
        clients.forEach(id -> boot(id, 1, Map.of()));
        return this;
    }

    /**
     * Runs events until none is pending, virtual time passes {@code untilMillis}, or {@code maxEvents} ran.
     * Returns whether the run went quiet (nothing left to do).
     */
    public boolean run(long untilMillis, int maxEvents) {
        for (int events = 0; events < maxEvents && !queue.isEmpty(); events++) {
            if (network.restartProbability() > 0 && random.nextDouble() < network.restartProbability()) {
                crashAndRestart(serverIds.get(random.nextInt(serverIds.size())));
            }
            Pending next = queue.poll();
            if (next.dueMillis() > untilMillis) {
                queue.add(next);
                return false;
            }
            nowMillis = next.dueMillis();
            if (next.timer() == null) {
                dispatch(next.to(), (node, env) -> node.onMessage(env, next.from(), next.message()));
            } else if (next.timerEnv() == envs.get(next.to()) && next.timerEnv().liveTimers.remove(next.timer())) {
                dispatch(next.to(), (node, env) -> node.onTimer(env, next.timer(), next.message()));
            }
        }
        return queue.isEmpty();
    }

    /**
     * Crashes a node (unsynced storage writes are lost, its timers die) and restarts it at once as a new
     * incarnation, for a failure shorter than any timeout; messages in flight reach the new incarnation.
     */
    public void crashAndRestart(NodeId victim) {
        storages.get(victim).crash();
        SimEnv old = envs.get(victim);
        boot(victim, old.incarnation + 1, old.args);
    }

    public Map<NodeId, Node> nodes() { return nodes; }
    public List<NodeId> serverIds() { return serverIds; }
    public long nowMillis() { return nowMillis; }
    /** What the nodes wrote with {@link Env#log}, for debugging a seed. */
    public List<String> logLines() { return logLines; }

    private void boot(NodeId id, int incarnation, Map<String, String> args) {
        List<NodeId> peers = serverIds.stream().filter(peer -> !peer.equals(id)).toList();
        storages.computeIfAbsent(id, unused -> new SimStorage());
        envs.put(id, new SimEnv(id, peers, args, incarnation, random.split()));
        nodes.put(id, factories.get(id).get());
        dispatch(id, Node::onStart);
    }

    private void dispatch(NodeId id, BiConsumer<Node, Env> handler) {
        Node node = nodes.get(id);
        handler.accept(node, envs.get(id));
        observer.accept(id, node);
    }

    private void enqueue(long delayMillis, NodeId to, NodeId from, Object message, SimEnv timerEnv, TimerId timer) {
        queue.add(new Pending(nowMillis + delayMillis, nextSequence++, to, from, message, timerEnv, timer));
    }

    private final class SimEnv implements Env {
        private final NodeId self;
        private final List<NodeId> peers;
        private final Map<String, String> args;
        private final int incarnation;
        private final SplittableRandom nodeRandom;
        private final Set<TimerId> liveTimers = new HashSet<>();
        private long nextTimerId;

        SimEnv(NodeId self, List<NodeId> peers, Map<String, String> args, int incarnation, SplittableRandom random) {
            this.self = self;
            this.peers = peers;
            this.args = args;
            this.incarnation = incarnation;
            this.nodeRandom = random;
        }

        @Override public NodeId self() { return self; }
        @Override public List<NodeId> peers() { return peers; }
        @Override public Map<String, String> args() { return args; }
        @Override public int incarnation() { return incarnation; }
        @Override public long nowMillis() { return nowMillis; }
        @Override public RandomGenerator random() { return nodeRandom; }
        @Override public Storage storage() { return storages.get(self); }
        @Override public void log(String line) { logLines.add(nowMillis + "ms " + self + "#" + incarnation + ": " + line); }

        @Override
        public void send(NodeId to, Object message) {
            if (!factories.containsKey(to)) {
                throw new IllegalArgumentException(self + " cannot send to unknown node " + to);
            }
            if (random.nextDouble() < network.dropProbability()) {
                return;
            }
            boolean slow = random.nextDouble() < network.slowProbability();
            enqueue(1 + random.nextInt(slow ? network.slowDelayMillis() : network.maxDelayMillis()), to, self,
                    message, null, null);
        }

        @Override
        public TimerId setTimer(Duration delay, Object tag) {
            TimerId timer = new TimerId(nextTimerId++);
            liveTimers.add(timer);
            enqueue(delay.toMillis(), self, self, tag, this, timer);
            return timer;
        }

        @Override public void cancelTimer(TimerId timer) { liveTimers.remove(timer); }
    }

    /** Writes are visible at once; a crash keeps only what was synced. */
    private static final class SimStorage implements Storage {
        private final Map<String, byte[]> current = new HashMap<>();
        private final Map<String, byte[]> durable = new HashMap<>();

        @Override
        public Optional<byte[]> read(String key) {
            return Optional.ofNullable(current.get(key)).map(byte[]::clone);
        }

        @Override
        public void write(String key, byte[] value) {
            if (value == null) {
                current.remove(key);
            } else {
                current.put(key, value.clone());
            }
        }

        @Override public void sync() { durable.clear(); durable.putAll(current); }
        void crash() { current.clear(); current.putAll(durable); }
    }
}
