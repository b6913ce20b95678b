package dev.deja.trace;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * {@code TRACE/trace.json}: what a launcher that knew the whole run (deploy, simulate) says about it. Optional:
 * a trace assembled by hand from node directories has none.
 *
 * @param kind     {@code deploy} or {@code simulate}
 * @param settings the run's settings (example, bug, drop probability, duration, ...), for humans and tools
 * @param events   what the launcher did during the run (kills, restarts), in order
 * @param code     each recorded node's code as its manifest says ({@link CodeFingerprint}), by node id; filled in
 *                 from the manifests by {@link Trace#writeSummary} when the launcher leaves it empty
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TraceSummary(int formatVersion, String kind, String command, List<String> nodes, long startMillis,
                           long endMillis, Map<String, Object> settings, List<LauncherEvent> events,
                           Map<String, String> code) {
    public TraceSummary {
        nodes = List.copyOf(nodes);
        settings = settings == null ? Map.of() : settings;
        events = events == null ? List.of() : List.copyOf(events);
        code = code == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(code));
    }

    /** A summary whose code is filled in from the manifests when written. */
    public TraceSummary(int formatVersion, String kind, String command, List<String> nodes, long startMillis,
                        long endMillis, Map<String, Object> settings, List<LauncherEvent> events) {
        this(formatVersion, kind, command, nodes, startMillis, endMillis, settings, events, Map.of());
    }

    /** Something the launcher did to a node, e.g. {@code kill} of {@code n2} at 5000 ms into the run. */
    public record LauncherEvent(long atMillis, String action, String node, String detail) {
    }

    /** The file name inside the trace directory. */
    public static final String FILE = "trace.json";
}
