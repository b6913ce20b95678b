package dev.deja.view.internal;

import java.util.Arrays;

/**
 * Positions of sends by (sender lane, message id): an open-addressing hash table on primitive arrays, since a
 * large trace has hundreds of thousands of sends and boxed keys would cost more than the rest of the model.
 * Not thread-safe.
 */
final class MessageIndex {
    private static final int EMPTY = -1;

    private long[] ids;
    private int[] lanes;
    private int[] positions;
    private int size;
    private int mask;

    MessageIndex() {
        allocate(1 << 12);
    }

    private void allocate(int capacity) {
        ids = new long[capacity];
        lanes = new int[capacity];
        positions = new int[capacity];
        Arrays.fill(lanes, EMPTY);
        mask = capacity - 1;
        size = 0;
    }

    private static int hash(int lane, long messageId) {
        long mixed = (messageId ^ ((long) lane << 48)) * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 29));
    }

    /** Remembers the send of {@code messageId} by {@code lane} at {@code position} (a later one replaces it). */
    void put(int lane, long messageId, int position) {
        if ((size + 1) * 2 > ids.length) {
            grow();
        }
        int slot = hash(lane, messageId) & mask;
        while (lanes[slot] != EMPTY) {
            if (lanes[slot] == lane && ids[slot] == messageId) {
                positions[slot] = position;
                return;
            }
            slot = (slot + 1) & mask;
        }
        lanes[slot] = lane;
        ids[slot] = messageId;
        positions[slot] = position;
        size++;
    }

    /** The position of the send of {@code messageId} by {@code lane}, or -1. */
    int get(int lane, long messageId) {
        int slot = hash(lane, messageId) & mask;
        while (lanes[slot] != EMPTY) {
            if (lanes[slot] == lane && ids[slot] == messageId) {
                return positions[slot];
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    private void grow() {
        long[] oldIds = ids;
        int[] oldLanes = lanes;
        int[] oldPositions = positions;
        allocate(oldIds.length * 2);
        for (int i = 0; i < oldIds.length; i++) {
            if (oldLanes[i] != EMPTY) {
                put(oldLanes[i], oldIds[i], oldPositions[i]);
            }
        }
    }
}
