package dev.deja.check.testing;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Records a cluster in this process as a discrete-event simulation with virtual time: every send is dropped
 * with a probability or delivered after a random delay (5% of messages are slow, up to 400 ms, so messages
 * reorder), timers fire at their due time,
 * and the earliest due item goes next. Each node records with a real {@link NodeLogWriter}, so the result is
 * a real trace; the same seed gives the same trace. For checker tests until the project's simulator exists.
 */
public final class SimRecorder {
    private record Item(long dueMillis, long order, NodeId to, NodeId from, long senderLamport, long messageId,
                        Payload message, TimerId timer) {
    }

    private static final double SLOW_PROBABILITY = 0.05;
    private static final long SLOW_DELAY_MILLIS = 400;

    private final Map<NodeId, NodeRunner> runners = new LinkedHashMap<>();
    private final Map<NodeId, NodeLogWriter> writers = new LinkedHashMap<>();
    private final PriorityQueue<Item> agenda = new PriorityQueue<>((a, b) -> a.dueMillis() != b.dueMillis()
            ? Long.compare(a.dueMillis(), b.dueMillis()) : Long.compare(a.order(), b.order()));
    private final SplittableRandom random;
    private final double dropProbability;
    private final long maxDelayMillis;
    private long nowMillis = 1_000_000;
    private long order;

    /**
     * Opens a recording of {@code count} nodes {@code n1..nN} of class {@code type} with {@code args}, each with
     * every other node as peer.
     */
    public SimRecorder(Path trace, Class<? extends Node> type, int count, Map<String, String> args, long seed,
                       double dropProbability, long maxDelayMillis) {
        this.random = new SplittableRandom(seed);
        this.dropProbability = dropProbability;
        this.maxDelayMillis = maxDelayMillis;
        MessageCodec codec = MessageCodec.defaultCodec();
        List<NodeId> ids = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ids.add(new NodeId("n" + i));
        }
        for (NodeId id : ids) {
            NodeLogWriter writer = NodeLogWriter.open(trace, id, type.getName(), "test", 1, nowMillis);
            Node node;
            try {
                node = type.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            List<NodeId> peers = ids.stream().filter(p -> !p.equals(id)).toList();
            runners.put(id, new NodeRunner(node, new NodeRunner.Setup(id, peers, args, writer.incarnation(),
                    writer.lastLamportBefore(), writer.nextSeq(), 0), new SimPlatform(id), codec, writer));
            writers.put(id, writer);
        }
    }

    /** Starts every node, runs at most {@code maxSteps} deliveries and timer firings, and closes the logs. */
    public void run(int maxSteps) {
        runners.values().forEach(NodeRunner::start);
        for (int step = 0; step < maxSteps && !agenda.isEmpty(); step++) {
            Item next = agenda.poll();
            nowMillis = Math.max(nowMillis, next.dueMillis());
            NodeRunner to = runners.get(next.to());
            if (next.timer() != null) {
                to.fireTimer(next.timer());
            } else {
                to.deliver(next.from(), next.senderLamport(), next.messageId(), next.message());
            }
        }
        writers.values().forEach(w -> w.close(nowMillis));
    }

    private final class SimPlatform implements Platform {
        private final NodeId self;
        private final Map<String, byte[]> storage = new HashMap<>();

        SimPlatform(NodeId self) {
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
            if (!runners.containsKey(to) || random.nextDouble() < dropProbability) {
                return;
            }
            // Most messages are fast; a few are slow, which is what reorders them across rounds.
            boolean slow = random.nextDouble() < SLOW_PROBABILITY;
            long delay = 1 + random.nextLong(slow ? SLOW_DELAY_MILLIS : maxDelayMillis);
            agenda.add(new Item(nowMillis + delay, order++, to, self, senderLamport, messageId, message, null));
        }

        @Override
        public boolean knows(NodeId node) {
            return true;
        }

        @Override
        public void scheduleTimer(TimerId timer, Duration delay) {
            agenda.add(new Item(nowMillis + delay.toMillis(), order++, self, null, 0, 0, null, timer));
        }

        @Override
        public void cancelTimer(TimerId timer) {
            agenda.removeIf(i -> self.equals(i.to()) && timer.equals(i.timer()));
        }

        @Override
        public void log(NodeId node, int incarnation, String line) {
        }
    }
}
