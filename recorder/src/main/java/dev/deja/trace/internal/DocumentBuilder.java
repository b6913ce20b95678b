package dev.deja.trace.internal;

/**
 * Gathers encoded entries into one queue document of format 2: {@code count:stopbit}, then each entry as
 * {@code length:stopbit} and its bytes (see {@link EntryCodec}). Reused from document to document. Not thread-safe.
 */
public final class DocumentBuilder {
    /** Room in front of the entries for the count, which is known only when the document is complete. */
    private static final int COUNT_ROOM = 5;

    private final EntryCodec.Writer out = new EntryCodec.Writer(4096);
    private int count;
    private int start;

    public DocumentBuilder() {
        clear();
    }

    /** Adds the entry in the first {@code length} bytes of {@code entry}. */
    public void add(byte[] entry, int length) {
        out.writeStopBit(length);
        out.write(entry, 0, length);
        count++;
    }

    /** How many entries the document holds. */
    public int count() {
        return count;
    }

    /** The bytes the entries take so far, their length prefixes included. */
    public int entryBytes() {
        return out.length - COUNT_ROOM;
    }

    /**
     * Writes the count in front of the entries: the document is then the {@link #length()} bytes of
     * {@link #bytes()} from {@link #start()}, until the next {@link #add} or {@link #clear()}.
     */
    public void finish() {
        if (count == 0) {
            throw new IllegalStateException("a document holds at least one entry");
        }
        int end = out.length;
        start = COUNT_ROOM - lengthPrefixBytes(count);
        out.length = start;
        out.writeStopBit(count);
        out.length = end;
    }

    public byte[] bytes() {
        return out.bytes;
    }

    public int start() {
        return start;
    }

    public int length() {
        return out.length - start;
    }

    /** Empties the document. */
    public void clear() {
        out.clear();
        out.length = COUNT_ROOM;
        count = 0;
        start = COUNT_ROOM;
    }

    /** The bytes a stop-bit count or length of {@code value} takes (7 bits a byte), as in front of an entry. */
    public static int lengthPrefixBytes(int value) {
        int length = 1;
        while ((value >>>= 7) != 0) {
            length++;
        }
        return length;
    }
}
