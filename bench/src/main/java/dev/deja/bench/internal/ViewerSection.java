package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.Summary;
import dev.deja.bench.ViewerBenchmark;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The viewer: time to open a million-entry trace and frame times while panning, through a
 * {@link ViewerBenchmark} found on the classpath. Without one, the results say the viewer was not measured.
 */
final class ViewerSection {
    private final Workspace workspace;

    ViewerSection(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() throws Exception {
        ObjectNode result = Results.object();
        List<ViewerBenchmark> hooks = ServiceLoader.load(ViewerBenchmark.class).stream()
                .map(ServiceLoader.Provider::get).toList();
        if (hooks.isEmpty()) {
            result.put("measured", false);
            result.put("reason", "no viewer benchmark hook (" + ViewerBenchmark.class.getName() + ") registered");
            workspace.progress().say("viewer: not measured (no %s on the classpath)", ViewerBenchmark.class.getSimpleName());
            return result;
        }
        Path trace = workspace.kvTrace(workspace.plan().replayEntries());
        ViewerBenchmark.Measurement measurement = hooks.getFirst().measure(trace, workspace.plan().viewerFrames());
        result.put("measured", true);
        result.put("implementation", hooks.getFirst().getClass().getName());
        result.put("trace_entries", workspace.kvTraceEntries(trace));
        result.put("open_seconds", Results.round(measurement.open().toNanos() / 1e9));
        result.set("frame_millis", Results.summary(Summary.of(measurement.frames().stream()
                .map(frame -> frame.toNanos() / 1e6).toList())));
        return result;
    }
}
