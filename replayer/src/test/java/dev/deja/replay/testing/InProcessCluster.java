package dev.deja.replay.testing;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Payload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Records a cluster in this process, without sockets or threads: messages are delivered first in, first out;
 * when none is in flight the earliest timer fires. Time is virtual. Each node records with a real
 * {@link NodeLogWriter}, so the result is a real trace; a node whose log already holds an incarnation continues it in
 * a new one. For tests that need a trace quickly.
 */
public final class InProcessCluster {
    private record Delivery(NodeId to, NodeId from, long senderLamport, long messageId, Payload message) {
    }

    private record Timer(long dueMillis, long order, NodeId node, TimerId timer) {
    }

    private final Map<NodeId, NodeRunner> runners = new LinkedHashMap<>();
    private final Map<NodeId, NodeLogWriter> writers = new LinkedHashMap<>();
    private final ArrayDeque<Delivery> inFlight = new ArrayDeque<>();
    private final List<Timer> timers = new ArrayList<>();
    private final SplittableRandom random;
    private long nowMillis = 1_000_000;
    private long timerOrder;

    /** Opens a recording of {@code nodes} (id to class), each with every other node as peer. */
    public InProcessCluster(Path trace, Map<NodeId, Class<? extends Node>> nodes, long seed) {
        this.random = new SplittableRandom(seed);
        MessageCodec codec = MessageCodec.defaultCodec();
        List<NodeId> ids = new TreeMap<>(nodes).keySet().stream().toList();
        for (NodeId id : ids) {
            Class<? extends Node> type = nodes.get(id);
            NodeLogWriter writer = NodeLogWriter.open(trace, id, type.getName(), "test", 1, nowMillis);
            Node node;
            try {
                node = type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            List<NodeId> peers = ids.stream().filter(p -> !p.equals(id)).toList();
            // As the live runtime does: a node whose previous incarnation was killed records its crash first.
            int crashed = writer.previousIncarnationCrashed() ? writer.incarnation() - 1 : 0;
            NodeRunner runner = new NodeRunner(node, new NodeRunner.Setup(id, peers, Map.of(), writer.incarnation(),
                    writer.lastLamportBefore(), writer.nextSeq(), crashed), new TestPlatform(id), codec, writer);
            runners.put(id, runner);
            writers.put(id, writer);
        }
    }

    /** Starts every node, runs at most {@code maxSteps} deliveries and timer firings, and closes the logs. */
    public void run(int maxSteps) {
        runners.values().forEach(NodeRunner::start);
        for (int step = 0; step < maxSteps; step++) {
            nowMillis += 7;
            if (!inFlight.isEmpty()) {
                Delivery delivery = inFlight.removeFirst();
                NodeRunner to = runners.get(delivery.to());
                if (to != null) {
                    to.deliver(delivery.from(), delivery.senderLamport(), delivery.messageId(), delivery.message());
                }
            } else if (!timers.isEmpty()) {
                Timer next = timers.stream().min((a, b) -> a.dueMillis() != b.dueMillis()
                        ? Long.compare(a.dueMillis(), b.dueMillis()) : Long.compare(a.order(), b.order())).orElseThrow();
                timers.remove(next);
                nowMillis = Math.max(nowMillis, next.dueMillis());
                runners.get(next.node()).fireTimer(next.timer());
            } else {
                break;
            }
        }
        writers.values().forEach(w -> w.close(nowMillis));
    }

    private final class TestPlatform implements Platform {
        private final NodeId self;
        private final Map<String, byte[]> storage = new HashMap<>();

        TestPlatform(NodeId self) {
            this.self = self;
        }

        @Override
        public long currentTimeMillis() {
            return nowMillis;
        }

        @Override
        public long nextRandomLong() {
            return random.nextLong();
        }

        @Override
        public Optional<byte[]> storageRead(String key) {
            return Optional.ofNullable(storage.get(key));
        }

        @Override
        public void storageWrite(String key, byte[] value) {
            if (value == null) {
                storage.remove(key);
            } else {
                storage.put(key, value);
            }
        }

        @Override
        public void storageSync() {
        }

        @Override
        public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
            inFlight.addLast(new Delivery(to, self, senderLamport, messageId, message));
        }

        @Override
        public boolean knows(NodeId node) {
            return true;
        }

        @Override
        public void scheduleTimer(TimerId timer, Duration delay) {
            timers.add(new Timer(nowMillis + delay.toMillis(), timerOrder++, self, timer));
        }

        @Override
        public void cancelTimer(TimerId timer) {
            timers.removeIf(t -> t.node().equals(self) && t.timer().equals(timer));
        }

        @Override
        public void log(NodeId node, int incarnation, String line) {
        }
    }
}
