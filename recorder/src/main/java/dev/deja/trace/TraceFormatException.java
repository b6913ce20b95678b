package dev.deja.trace;

/**
 * A trace cannot be read: a corrupted entry, an unknown format version, a missing or malformed file. The
 * message names the file, the node and, for entries, the entry index and byte offset.
 */
public class TraceFormatException extends RuntimeException {
    public TraceFormatException(String message) {
        super(message);
    }

    public TraceFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
