package dev.deja.trace;

import dev.deja.trace.internal.DocumentBuilder;
import dev.deja.trace.internal.EntryCodec;

/**
 * The recorder's entry encoding as tools outside the recorder see it: the format version a trace written by this
 * build carries, and what one entry takes in a log. Measuring runs the recorder's own encoder, so the sizes are
 * those of a log written entry by entry from its first entry. Not thread-safe: each thread uses its own instance.
 */
public final class TraceEncoding {
    /** The trace format this build writes (in every node manifest and {@code trace.json}). */
    public static final int FORMAT_VERSION = EntryCodec.FORMAT_VERSION;

    private final EntryCodec codec = new EntryCodec();

    /**
     * What one entry takes in a log.
     *
     * @param storedBytes the entry as stored (LZ4 on bodies where it pays), with its length prefix in the document
     * @param rawBytes    the same entry without compression, with its length prefix
     */
    public record EntrySize(long storedBytes, long rawBytes) {
    }

    /** Starts a new log: the encoder forgets the message classes it has spelled out. */
    public void startLog() {
        codec.startLog();
    }

    /** Encodes {@code entry} as the next entry of the current log and says what it takes. */
    public EntrySize measure(TraceEvent entry) {
        int entryLength = codec.encode(entry);
        int rawEntryLength = EntryCodec.HEADER_BYTES + codec.lastRawLength();
        return new EntrySize(DocumentBuilder.lengthPrefixBytes(entryLength) + entryLength,
                DocumentBuilder.lengthPrefixBytes(rawEntryLength) + rawEntryLength);
    }
}
