package dev.deja.runtime;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.internal.FileStorage;
import dev.deja.runtime.internal.TcpTransport;
import dev.deja.trace.Payload;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The live twin of {@link Platform}. While recording it holds the messages handler calls send until their entries
 * are written (when the group of calls ends): a message must not reach another node before its send is in the log
 * (a {@code kill -9} in between would leave a receive without its send).
 */
final class LivePlatform implements Platform {
    /** A message sent by a handler call, held until the call's entries are written. */
    private record Outgoing(NodeId to, long senderLamport, long messageId, Payload message) {
    }

    private final FileStorage storage;
    private final Set<NodeId> addressable;
    private final boolean holdMessages;
    private final List<Outgoing> held = new ArrayList<>(); // handler thread only
    private final SecureRandom random = new SecureRandom();
    private final Map<Long, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();
    NodeRunner runner; // set once, right after construction (the runner needs the platform first)
    TcpTransport transport; // likewise
    private final long clockSkewMillis;
    private final NodeId self;
    private final Queue<Runnable> tasks;
    private final ScheduledExecutorService scheduler;
    private final BiConsumer<Integer, String> log;

    /**
     * @param tasks     the handler thread's work queue: timers and messages to itself are handed back through it
     * @param scheduler runs timers
     * @param log       writes a node's log line, given its incarnation
     */
    LivePlatform(NodeId self, FileStorage storage, Set<NodeId> addressable, boolean holdMessages, long clockSkewMillis,
                 Queue<Runnable> tasks, ScheduledExecutorService scheduler, BiConsumer<Integer, String> log) {
        this.self = self;
        this.tasks = tasks;
        this.scheduler = scheduler;
        this.log = log;
        this.clockSkewMillis = clockSkewMillis;
        this.storage = storage;
        this.addressable = addressable;
        this.holdMessages = holdMessages;
    }

    /** Sends the messages held for the handler calls whose entries were just written. */
    void releaseHeld() {
        for (Outgoing message : held) {
            send(message.to(), message.senderLamport(), message.messageId(), message.message());
        }
        held.clear();
    }

    /** How many messages are held. */
    int heldCount() {
        return held.size();
    }

    /** Forgets the messages held after the first {@code kept} and returns how many there were. */
    int dropHeldSince(int kept) {
        int count = held.size() - kept;
        held.subList(kept, held.size()).clear();
        return count;
    }

    @Override
    public long currentTimeMillis() {
        return System.currentTimeMillis() + clockSkewMillis; // the injected skew, 0 unless the faults ask for it
    }

    @Override
    public long nextRandomLong() {
        return random.nextLong();
    }

    @Override
    public Optional<byte[]> storageRead(String key) {
        return storage.read(key);
    }

    @Override
    public void storageWrite(String key, byte[] value) {
        storage.write(key, value);
    }

    @Override
    public void storageSync() {
        storage.sync();
    }

    @Override
    public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
        if (holdMessages) {
            held.add(new Outgoing(to, senderLamport, messageId, message));
        } else {
            send(to, senderLamport, messageId, message);
        }
    }

    private void send(NodeId to, long senderLamport, long messageId, Payload message) {
        if (to.equals(self)) {
            tasks.add(() -> runner.deliver(self, senderLamport, messageId, message));
        } else {
            transport.send(to, senderLamport, messageId, message);
        }
    }

    @Override
    public boolean knows(NodeId node) {
        return addressable.contains(node);
    }

    @Override
    public void scheduleTimer(TimerId timer, Duration delay) {
        ScheduledFuture<?> future = scheduler.schedule(() -> {
            timers.remove(timer.value());
            tasks.add(() -> runner.fireTimer(timer));
        }, delay.toNanos(), TimeUnit.NANOSECONDS);
        timers.put(timer.value(), future);
    }

    @Override
    public void cancelTimer(TimerId timer) {
        ScheduledFuture<?> future = timers.remove(timer.value());
        if (future != null) {
            future.cancel(false);
        }
    }

    @Override
    public void log(NodeId node, int incarnation, String line) {
        log.accept(incarnation, line);
    }
}
