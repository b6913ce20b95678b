package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.Summary;
import java.nio.file.Path;

/** The viewer: time to open a million-entry trace and frame times while panning ({@link PanningBenchmark}). */
final class ViewerSection {
    private final Workspace workspace;

    ViewerSection(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() throws Exception {
        ObjectNode result = Results.object();
        Path trace = workspace.kvTrace(workspace.plan().replayEntries());
        PanningBenchmark.Measurement measurement = PanningBenchmark.measure(trace, workspace.plan().viewerFrames());
        result.put("measured", true);
        result.put("implementation", PanningBenchmark.class.getName());
        result.put("trace_entries", workspace.kvTraceEntries(trace));
        result.put("open_seconds", Results.round(measurement.open().toNanos() / 1e9));
        result.set("frame_millis", Results.summary(Summary.of(measurement.frames().stream()
                .map(frame -> frame.toNanos() / 1e6).toList())));
        return result;
    }
}
