package dev.deja.replay;

import dev.deja.trace.TraceFormatException;

/**
 * A trace cannot be replayed: its logs break a happens-before rule (seq gap, Lamport clock not increasing, a
 * receive without a matching earlier send), a node's log is missing, or a node class cannot be loaded. The
 * message names the trace, the node and the entries involved. A node that merely behaves differently on
 * replay is not an exception but a {@link Divergence}.
 */
public class ReplayException extends TraceFormatException {
    public ReplayException(String message) {
        super(message);
    }

    public ReplayException(String message, Throwable cause) {
        super(message, cause);
    }
}
