package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;

/**
 * Trace size: bytes per event and per message of the trace the recording section recorded (when it ran) and of
 * simulated key-value traces of growing length, stored (LZ4 where it pays) and raw, and on disk.
 */
final class TraceSizeBenchmark {
    private final Workspace workspace;

    TraceSizeBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    ObjectNode run() {
        ObjectNode result = Results.object();
        Path headline;
        if (workspace.recordedKvTrace().isPresent()) {
            headline = workspace.recordedKvTrace().get();
            result.put("trace", "the recording benchmark's loopback key-value deployment");
        } else {
            headline = workspace.kvTrace(workspace.plan().growthEntries().getLast());
            result.put("trace", "a simulated key-value run");
        }
        TraceBytes bytes = TraceBytes.measure(headline);
        workspace.progress().say("trace size: %d entries, %.1f bytes per entry stored, %.1f raw, %.1f on disk",
                bytes.entries(), perEntry(bytes.storedBytes(), bytes), perEntry(bytes.rawBytes(), bytes),
                perEntry(bytes.diskBytes(), bytes));
        describe(result, bytes);
        ObjectNode types = result.putObject("by_type");
        bytes.byType().forEach((type, counts) -> {
            ObjectNode node = types.putObject(type);
            node.put("entries", counts[0]);
            node.put("stored_bytes_per_entry", Results.round((double) counts[1] / counts[0]));
            node.put("raw_bytes_per_entry", Results.round((double) counts[2] / counts[0]));
        });
        ArrayNode growth = result.putArray("growth");
        for (long length : workspace.plan().growthEntries()) {
            TraceBytes grown = TraceBytes.measure(workspace.kvTrace(length));
            workspace.progress().say("trace size: simulated run of %d entries: %.1f bytes per entry stored, %.1f on disk",
                    grown.entries(), perEntry(grown.storedBytes(), grown), perEntry(grown.diskBytes(), grown));
            describe(growth.addObject(), grown);
        }
        return result;
    }

    private static void describe(ObjectNode node, TraceBytes bytes) {
        node.put("entries", bytes.entries());
        node.put("messages", bytes.messages());
        node.put("stored", Results.round(perEntry(bytes.storedBytes(), bytes)));
        node.put("raw", Results.round(perEntry(bytes.rawBytes(), bytes)));
        node.put("on_disk", Results.round(perEntry(bytes.diskBytes(), bytes)));
        node.put("stored_per_message", Results.round(bytes.storedBytesPerMessage()));
        node.put("raw_per_message", Results.round(bytes.rawBytesPerMessage()));
        node.put("stored_bytes", bytes.storedBytes());
        node.put("raw_bytes", bytes.rawBytes());
        node.put("disk_bytes", bytes.diskBytes());
    }

    private static double perEntry(long total, TraceBytes bytes) {
        return bytes.entries() == 0 ? 0 : (double) total / bytes.entries();
    }
}
