package dev.deja.trace;

/** Where a running node's recorded events go: a {@link NodeLogWriter}, or a list in tests. */
@FunctionalInterface
public interface TraceSink {
    /** Records one event; events arrive in seq order from one thread. */
    void append(TraceEvent event);
}
