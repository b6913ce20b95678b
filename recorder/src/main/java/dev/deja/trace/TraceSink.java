package dev.deja.trace;

/** Where a running node's recorded events go: a {@link NodeLogWriter}, or a list in tests. */
@FunctionalInterface
public interface TraceSink {
    /** Records one event; events arrive in seq order from one thread. */
    void append(TraceEvent event);

    /**
     * The events appended from now until {@link #endHandler()} are those of one handler call (its dispatch event and
     * what the handler observed and sent): the sink may hold them and write them together.
     */
    default void beginHandler() {
    }

    /**
     * Ends what {@link #beginHandler()} began; when this returns, the handler call's events are written, unless
     * whoever owns the sink asked it to hold several calls (as {@link NodeLogWriter#beginGroup()} does) and writes
     * them later, before their effects leave the node.
     */
    default void endHandler() {
    }
}
