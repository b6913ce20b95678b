package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.replay.internal.HappensBeforeMerge;
import dev.deja.replay.internal.NodeStream;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import java.util.ArrayList;
import java.util.List;

/** Reads a trace through the replayer's happens-before merge into a {@link ColumnarTraceModel}. */
public final class TraceModelLoader {
    /** Sends the merge remembers for validating receives (as the replayer does). */
    private static final int REMEMBERED_SENDS = 1 << 18;

    private TraceModelLoader() {
    }

    /** Loads every entry of {@code trace}; the merge refuses logs that break a happens-before rule. */
    public static TraceModel load(Trace trace) {
        List<NodeStream> streams = new ArrayList<>();
        List<NodeId> lanes = new ArrayList<>();
        for (NodeLog log : trace.nodes()) {
            streams.add(NodeStream.of(log));
            lanes.add(log.node());
        }
        List<Boolean> completed = trace.nodes().stream().map(log -> log.manifest().lastIncarnation().completed()).toList();
        TraceModelBuilder builder = new TraceModelBuilder(trace.directory().toString(), lanes);
        try (HappensBeforeMerge merge = new HappensBeforeMerge(trace.directory().toString(), streams, REMEMBERED_SENDS)) {
            while (merge.hasNext()) {
                builder.add(merge.next());
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
