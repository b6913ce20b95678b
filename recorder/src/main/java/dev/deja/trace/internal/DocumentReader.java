package dev.deja.trace.internal;

/**
 * Splits a stored queue document into its entries: the whole document in format 1, the {@code count:stopbit}
 * length-prefixed entries of {@link DocumentBuilder} in format 2. Not thread-safe.
 */
public final class DocumentReader {
    private final int formatVersion;
    private EntryCodec.Reader in;
    private long remaining;
    private int entryOffset;
    private int entryLength;

    /** A reader of documents of {@code formatVersion}, which {@link EntryCodec#canRead} must accept. */
    public DocumentReader(int formatVersion) {
        if (!EntryCodec.canRead(formatVersion)) {
            throw new IllegalArgumentException("unknown trace format " + formatVersion);
        }
        this.formatVersion = formatVersion;
    }

    /**
     * Starts on the document held in the first {@code length} bytes of {@code stored}.
     *
     * @throws EntryCodec.CorruptEntryException if the document's entry count is not plausible
     */
    public void start(byte[] stored, int length) {
        in = new EntryCodec.Reader(stored, 0, length);
        if (formatVersion == 1) {
            remaining = 1;
            return;
        }
        remaining = in.readStopBit();
        if (remaining < 1 || remaining > in.remaining()) {
            throw new EntryCodec.CorruptEntryException("a document of " + length + " bytes claims " + remaining
                    + " entries");
        }
    }

    /** Whether the document has an entry after the current one. */
    public boolean hasNext() {
        return remaining > 0;
    }

    /**
     * Moves to the next entry, whose bytes are then the {@link #entryLength()} bytes from {@link #entryOffset()}.
     *
     * @throws EntryCodec.CorruptEntryException if its length or the end of the document does not fit
     */
    public void next() {
        if (remaining <= 0) {
            throw new IllegalStateException("no entry left in the document");
        }
        remaining--;
        if (formatVersion == 1) {
            entryOffset = in.position;
            entryLength = in.remaining();
            in.position = in.limit;
            return;
        }
        long length = in.readStopBit();
        if (length < 1 || length > in.remaining()) {
            throw new EntryCodec.CorruptEntryException("entry length " + length + " exceeds the document");
        }
        entryOffset = in.position;
        entryLength = (int) length;
        in.position += entryLength;
        if (remaining == 0 && in.remaining() != 0) {
            throw new EntryCodec.CorruptEntryException(in.remaining() + " unexpected bytes after the last entry of"
                    + " a document");
        }
    }

    public int entryOffset() {
        return entryOffset;
    }

    public int entryLength() {
        return entryLength;
    }
}
