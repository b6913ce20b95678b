package dev.deja.view.internal;

import java.util.Arrays;

/** A set of longs by open addressing, for de-duplicating what is drawn at one pixel. Not thread-safe. */
final class LongSet {
    private static final long FREE = Long.MIN_VALUE;

    private long[] slots;
    private int size;

    LongSet() {
        slots = new long[1 << 10];
        Arrays.fill(slots, FREE);
    }

    /** Adds {@code value} (which must not be {@link Long#MIN_VALUE}); returns whether it was absent. */
    boolean add(long value) {
        if ((size + 1) * 2 > slots.length) {
            long[] old = slots;
            slots = new long[old.length * 2];
            Arrays.fill(slots, FREE);
            size = 0;
            for (long v : old) {
                if (v != FREE) {
                    add(v);
                }
            }
        }
        int mask = slots.length - 1;
        long mixed = value * 0x9E3779B97F4A7C15L;
        int slot = (int) (mixed ^ (mixed >>> 32)) & mask;
        while (slots[slot] != FREE) {
            if (slots[slot] == value) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        slots[slot] = value;
        size++;
        return true;
    }
}
