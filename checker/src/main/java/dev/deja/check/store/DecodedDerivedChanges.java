package dev.deja.check.store;

import dev.deja.check.DerivedValues;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The decoded stored changes of derived values, per database and derived value, reused while the stored chunks are
 * byte for byte the ones they were decoded from. A process that re-checks the same trace again and again (the warm
 * engine, {@code deja check --watch}, the benchmark) reads the chunks from the database each time, which is cheap,
 * but decoding a value that changes at every event took most of a re-check's preparation: 37,778 changes of Chord's
 * clock, 730 KB, 8-12 ms. Comparing the bytes is exact, so nothing stale is ever served; the changes are immutable
 * records, so sharing them is safe.
 *
 * <p>Thread-safe. Bounded by the stored bytes it holds ({@link #MAX_BYTES}), the least recently used dropped first.
 */
final class DecodedDerivedChanges {
    /** At most this many stored bytes are held (the decoded changes take about twice as much). */
    static final long MAX_BYTES = 16L << 20;

    private record Key(Path database, String derived) {
    }

    private record Decoded(List<byte[]> chunks, long bytes, List<DerivedValues.Change> changes) {
    }

    private static final Map<Key, Decoded> DECODED = new LinkedHashMap<>(16, 0.75f, true);
    private static long heldBytes;
    private static long reused;

    private DecodedDerivedChanges() {
    }

    /** The changes decoded earlier from exactly {@code chunks} of {@code derived} in {@code database}, or null. */
    static synchronized List<DerivedValues.Change> lookup(Path database, String derived, List<byte[]> chunks) {
        Decoded decoded = DECODED.get(new Key(database, derived));
        if (decoded == null || decoded.chunks().size() != chunks.size()) {
            return null;
        }
        for (int i = 0; i < chunks.size(); i++) {
            if (!Arrays.equals(decoded.chunks().get(i), chunks.get(i))) {
                return null;
            }
        }
        reused++;
        return decoded.changes();
    }

    /** Keeps {@code changes}, decoded from {@code chunks}, for a later {@link #lookup}; returns them unmodifiable. */
    static synchronized List<DerivedValues.Change> remember(Path database, String derived, List<byte[]> chunks,
                                                            List<DerivedValues.Change> changes) {
        List<DerivedValues.Change> kept = List.copyOf(changes);
        long bytes = chunks.stream().mapToLong(chunk -> chunk.length).sum();
        Decoded old = DECODED.remove(new Key(database, derived));
        if (old != null) {
            heldBytes -= old.bytes();
        }
        if (bytes <= MAX_BYTES) {
            DECODED.put(new Key(database, derived), new Decoded(List.copyOf(chunks), bytes, kept));
            heldBytes += bytes;
            Iterator<Decoded> eldest = DECODED.values().iterator();
            while (heldBytes > MAX_BYTES && eldest.hasNext()) {
                heldBytes -= eldest.next().bytes();
                eldest.remove();
            }
        }
        return kept;
    }

    /** How many lookups this process answered from what it kept (for tests). */
    static synchronized long reused() {
        return reused;
    }
}
