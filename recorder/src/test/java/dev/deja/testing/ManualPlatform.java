package dev.deja.testing;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.Platform;
import dev.deja.trace.Payload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A deterministic {@link Platform} for unit tests: fixed clock and random sequence, in-memory storage, captured sends. */
public final class ManualPlatform implements Platform {
    /** A message handed to the network. */
    public record Transmitted(NodeId to, long senderLamport, long messageId, Payload message) {
    }

    public long clockMillis = 1_000;
    public long nextRandom = 42;
    public final Map<String, byte[]> durable = new HashMap<>();
    public final Map<String, byte[]> unsynced = new HashMap<>();
    public final List<Transmitted> transmitted = new ArrayList<>();
    public final Map<Long, Duration> timers = new LinkedHashMap<>();
    public final List<String> lines = new ArrayList<>();
    private final Set<NodeId> known;

    public ManualPlatform(Set<NodeId> known) {
        this.known = known;
    }

    @Override
    public long currentTimeMillis() {
        return clockMillis;
    }

    @Override
    public long nextRandomLong() {
        return nextRandom++;
    }

    @Override
    public Optional<byte[]> storageRead(String key) {
        if (unsynced.containsKey(key)) {
            return Optional.ofNullable(unsynced.get(key));
        }
        return Optional.ofNullable(durable.get(key));
    }

    @Override
    public void storageWrite(String key, byte[] value) {
        unsynced.put(key, value);
    }

    @Override
    public void storageSync() {
        unsynced.forEach((k, v) -> {
            if (v == null) {
                durable.remove(k);
            } else {
                durable.put(k, v);
            }
        });
        unsynced.clear();
    }

    @Override
    public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
        transmitted.add(new Transmitted(to, senderLamport, messageId, message));
    }

    @Override
    public boolean knows(NodeId node) {
        return known.contains(node);
    }

    @Override
    public void scheduleTimer(TimerId timer, Duration delay) {
        timers.put(timer.value(), delay);
    }

    @Override
    public void cancelTimer(TimerId timer) {
        timers.remove(timer.value());
    }

    @Override
    public void log(NodeId node, int incarnation, String line) {
        lines.add(node + "/" + incarnation + ": " + line);
    }
}
