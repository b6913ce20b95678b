package dev.deja.runtime;

/**
 * A Lamport logical clock (Lamport 1978, the paper's reference 12). Every recorded event ticks it; a
 * receive sets it to {@code max(local, carried) + 1}, so a receive's clock is always greater than its send's.
 * Not thread-safe: owned by one node's handler thread.
 */
public final class LamportClock {
    private long value;

    /** A clock that continues after {@code initial} (0 for a node that never ran). */
    public LamportClock(long initial) {
        if (initial < 0) {
            throw new IllegalArgumentException("Lamport clock cannot be negative: " + initial);
        }
        this.value = initial;
    }

    /** Advances the clock for a local event (including a send) and returns the event's clock. */
    public long tick() {
        return ++value;
    }

    /** Advances the clock for receiving a message stamped {@code carried} and returns the receive's clock. */
    public long receive(long carried) {
        value = Math.max(value, carried) + 1;
        return value;
    }

    /** The clock of the last event. */
    public long current() {
        return value;
    }
}
