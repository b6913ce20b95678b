package dev.deja.check;

import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The nodes of a trace that crashed and never restarted, and their last event: a node whose manifest says the
 * recording of its last incarnation did not end with a clean shutdown (killed, or crashed in a simulation, with no
 * later incarnation) died after the last event at which one of its handlers began.
 */
public final class NodeDeaths {
    private NodeDeaths() {
    }

    /**
     * Node id to {incarnation, seq} of its last handler event, for every node that crashed for good; a node whose
     * last incarnation recorded no handler event is left out (it has no event to die at).
     */
    public static Map<String, long[]> of(Trace trace) {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (NodeLog log : trace.nodes()) {
            if (log.manifest().completed()) {
                continue;
            }
            long[] last = null;
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent entry = cursor.next();
                    if (entry.event().isDispatch()) {
                        last = new long[] {entry.incarnation(), entry.seq()};
                    }
                }
            }
            if (last != null) {
                out.put(log.node().value(), last);
            }
        }
        return out;
    }
}
