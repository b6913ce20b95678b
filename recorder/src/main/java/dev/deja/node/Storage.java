package dev.deja.node;

import java.util.Optional;

/**
 * A node's small durable key-to-bytes store.
 *
 * <p>Writes are visible to later reads at once but survive a crash only after {@link #sync()}: a crash
 * loses every write made since the last sync. Read results are recorded, so replay never needs the store.
 * Keys are non-empty strings of at most 200 characters.
 */
public interface Storage {
    /** The value stored under {@code key}, or empty. */
    Optional<byte[]> read(String key);

    /** Stores {@code value} under {@code key}; {@code null} deletes the key. */
    void write(String key, byte[] value);

    /** Makes every write so far durable. */
    void sync();
}
