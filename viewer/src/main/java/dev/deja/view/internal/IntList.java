package dev.deja.view.internal;

import java.util.Arrays;

/** A growable list of ints without boxing. Not thread-safe. */
final class IntList {
    private int[] values;
    private int size;

    IntList() {
        this(16);
    }

    IntList(int capacity) {
        values = new int[Math.max(4, capacity)];
    }

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[size++] = value;
    }

    int get(int index) {
        return values[index];
    }

    int size() {
        return size;
    }

    /** A copy holding exactly the elements. */
    int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
