package dev.deja.replay.internal;

import java.util.Arrays;

/**
 * The most recent sends of a merge, for checking receives: (sender, message id) to the send's Lamport clock and
 * receiver, forgetting the oldest once {@code capacity} are held. Senders and receivers are small integers the
 * caller assigns to node ids. Linear probing over parallel arrays and a ring of keys in insertion order, so
 * remembering a send allocates nothing: this runs for every send of a replay. Not thread-safe.
 */
final class RememberedSends {
    private static final int EMPTY = 0;

    private final int capacity;
    private final int mask;
    // The table; a slot is empty when its sender is EMPTY (senders are stored plus one).
    private final int[] senders;
    private final long[] messageIds;
    private final long[] lamports;
    private final int[] receivers;
    // Keys in insertion order, for forgetting the oldest.
    private final int[] ringSenders;
    private final long[] ringMessageIds;
    private int ringStart;
    private int size;
    private long forgottenUpToLamport;

    /** @param capacity how many sends to hold; at least 1 */
    RememberedSends(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, was " + capacity);
        }
        this.capacity = capacity;
        int tableSize = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1; // a power of two, at least 2x
        this.mask = tableSize - 1;
        this.senders = new int[tableSize];
        this.messageIds = new long[tableSize];
        this.lamports = new long[tableSize];
        this.receivers = new int[tableSize];
        this.ringSenders = new int[capacity];
        this.ringMessageIds = new long[capacity];
    }

    /** Remembers a send (replacing an earlier one with the same key), forgetting the oldest if full. */
    void put(int sender, long messageId, long lamport, int receiver) {
        int slot = find(sender, messageId);
        if (slot >= 0) {
            lamports[slot] = lamport;
            receivers[slot] = receiver;
            return;
        }
        if (size == capacity) {
            int oldest = ringStart;
            int oldSlot = find(ringSenders[oldest], ringMessageIds[oldest]);
            forgottenUpToLamport = Math.max(forgottenUpToLamport, lamports[oldSlot]);
            delete(oldSlot);
            ringStart = (ringStart + 1) % capacity;
            size--;
        }
        int free = home(sender, messageId);
        while (senders[free] != EMPTY) {
            free = (free + 1) & mask;
        }
        senders[free] = sender + 1;
        messageIds[free] = messageId;
        lamports[free] = lamport;
        receivers[free] = receiver;
        int end = (ringStart + size) % capacity;
        ringSenders[end] = sender;
        ringMessageIds[end] = messageId;
        size++;
    }

    /** The slot of a remembered send, or -1; read it with {@link #lamport} and {@link #receiver}. */
    int find(int sender, long messageId) {
        int slot = home(sender, messageId);
        while (senders[slot] != EMPTY) {
            if (senders[slot] == sender + 1 && messageIds[slot] == messageId) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    long lamport(int slot) {
        return lamports[slot];
    }

    int receiver(int slot) {
        return receivers[slot];
    }

    /** The largest Lamport clock of a forgotten send: a receive at or below it may have lost its send. */
    long forgottenUpToLamport() {
        return forgottenUpToLamport;
    }

    int size() {
        return size;
    }

    private int home(int sender, long messageId) {
        long h = (messageId * 0x9E3779B97F4A7C15L) ^ (sender * 0x85EBCA6BL);
        return (int) (h ^ h >>> 29 ^ h >>> 47) & mask;
    }

    /** Empties {@code slot}, moving later entries of its probe run back so that lookups still find them. */
    private void delete(int slot) {
        int hole = slot;
        int next = (hole + 1) & mask;
        while (senders[next] != EMPTY) {
            int want = home(senders[next] - 1, messageIds[next]);
            // Move next into the hole unless its home lies cyclically in (hole, next].
            boolean stays = hole <= next ? (hole < want && want <= next) : (hole < want || want <= next);
            if (!stays) {
                senders[hole] = senders[next];
                messageIds[hole] = messageIds[next];
                lamports[hole] = lamports[next];
                receivers[hole] = receivers[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        senders[hole] = EMPTY;
        messageIds[hole] = 0;
    }

    @Override
    public String toString() {
        return "RememberedSends[" + size + " of " + capacity + ", table " + (mask + 1) + ", "
                + Arrays.stream(senders).filter(s -> s != EMPTY).count() + " used]";
    }
}
