package dev.deja.replay;

import dev.deja.replay.internal.HappensBeforeMerge;
import dev.deja.replay.internal.NodeStream;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A trace's entries in the one total order the replayer runs them in, a linearization of happens-before: the order
 * the simulator ran them in when the trace records it ({@code order.txt}), else by (Lamport clock, node id, seq); streamed so that memory does not grow with the trace. Iterating fails with
 * {@link ReplayException}, naming both entries, where the logs break a happens-before rule (see
 * {@link Replayer}). Not thread-safe; close it to release the logs.
 */
public final class MergedTrace implements Iterator<TraceEvent>, AutoCloseable {
    private final HappensBeforeMerge merge;

    private MergedTrace(HappensBeforeMerge merge) {
        this.merge = merge;
    }

    /** Merges every node log of {@code trace}. */
    public static MergedTrace open(Trace trace) {
        List<NodeStream> streams = new ArrayList<>();
        for (NodeLog log : trace.nodes()) {
            streams.add(NodeStream.of(log));
        }
        return new MergedTrace(new HappensBeforeMerge(trace.directory().toString(), streams,
                HappensBeforeMerge.orderOf(trace)));
    }

    @Override
    public boolean hasNext() {
        return merge.hasNext();
    }

    @Override
    public TraceEvent next() {
        return merge.next();
    }

    @Override
    public void close() {
        merge.close();
    }
}
