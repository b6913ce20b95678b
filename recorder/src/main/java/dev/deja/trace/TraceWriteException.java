package dev.deja.trace;

/**
 * A node's log cannot be written any more (its disk is full, its file cannot grow): the recording of that node
 * stopped, and what was written before stays readable. The message names the queue directory, node and incarnation.
 */
public class TraceWriteException extends RuntimeException {
    public TraceWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
