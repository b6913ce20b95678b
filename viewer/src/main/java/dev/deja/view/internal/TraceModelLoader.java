package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.MergedTrace;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/** Reads a trace through the replayer's happens-before merge into a {@link ColumnarTraceModel}. */
public final class TraceModelLoader {
    private TraceModelLoader() {
    }

    /**
     * Loads every entry of {@code trace}, telling {@code entriesRead} the count after each; the merge refuses logs
     * that break a happens-before rule.
     */
    public static TraceModel load(Trace trace, LongConsumer entriesRead) {
        List<NodeId> lanes = new ArrayList<>();
        for (NodeLog log : trace.nodes()) {
            lanes.add(log.node());
        }
        List<Boolean> completed = trace.nodes().stream().map(log -> log.manifest().lastIncarnation().completed()).toList();
        TraceModelBuilder builder = new TraceModelBuilder(trace.directory().toString(), lanes);
        try (MergedTrace merge = MergedTrace.open(trace)) {
            long read = 0;
            while (merge.hasNext()) {
                builder.add(merge.next());
                entriesRead.accept(++read);
            }
        }
        for (int lane = 0; lane < lanes.size(); lane++) {
            if (!completed.get(lane)) {
                builder.lastIncarnationCrashed(lanes.get(lane));
            }
        }
        return builder.build();
    }
}
