package dev.deja.examples.lockserver;

/** The two ways to hold a multiple-reader single-writer lock. */
public enum LockMode {
    /** Many holders at once, none exclusive. */
    SHARED,
    /** One holder, nobody else. */
    EXCLUSIVE;

    /** Whether a lock held in this mode lets its holder use it in {@code wanted} mode without asking again. */
    boolean covers(LockMode wanted) {
        return this == EXCLUSIVE || wanted == SHARED;
    }
}
