package dev.deja.bench.internal;

import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEncoding;
import dev.deja.trace.TraceEvent;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a trace's entries take: each entry as stored (LZ4 on bodies where it pays, with its length in the queue
 * document that holds it), the same without compression, and the trace directory on disk (Chronicle's index,
 * metadata, document counts and partly filled blocks included). Stored sizes are those of the recorder's own
 * encoder, run over each log in order from its first entry as the recorder runs it (a log spells out each message
 * class once).
 *
 * @param entries     entries of all nodes
 * @param storedBytes the entries as stored
 * @param rawBytes    the entries without compression
 * @param diskBytes   the node logs' files on disk (allocated blocks)
 * @param byType      per event type: count, stored bytes, raw bytes
 */
record TraceBytes(long entries, long storedBytes, long rawBytes, long diskBytes, Map<String, long[]> byType) {
    static TraceBytes measure(Path trace) {
        TraceEncoding encoding = new TraceEncoding();
        long entries = 0;
        long stored = 0;
        long raw = 0;
        Map<String, long[]> byType = new TreeMap<>();
        for (NodeLog log : Trace.open(trace).nodes()) {
            int incarnation = 0;
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent event = cursor.next();
                    if (event.incarnation() != incarnation) { // each incarnation's queue is a log of its own
                        encoding.startLog();
                        incarnation = event.incarnation();
                    }
                    TraceEncoding.EntrySize size = encoding.measure(event);
                    long storedLength = size.storedBytes();
                    long rawLength = size.rawBytes();
                    entries++;
                    stored += storedLength;
                    raw += rawLength;
                    long[] type = byType.computeIfAbsent(event.event().typeName(), t -> new long[3]);
                    type[0]++;
                    type[1] += storedLength;
                    type[2] += rawLength;
                }
            }
        }
        return new TraceBytes(entries, stored, raw, Workspace.diskBytes(trace.resolve(Trace.NODES)), byType);
    }

    /** Messages sent (each is one send entry at the sender and, unless lost, one receive entry at the receiver). */
    long messages() {
        return count("send");
    }

    long count(String type) {
        long[] counts = byType.get(type);
        return counts == null ? 0 : counts[0];
    }

    /** Stored bytes of sends and receives per message sent: what one message costs the trace. */
    double storedBytesPerMessage() {
        return perMessage(1);
    }

    double rawBytesPerMessage() {
        return perMessage(2);
    }

    private double perMessage(int column) {
        long messages = messages();
        if (messages == 0) {
            return 0;
        }
        long bytes = 0;
        for (String type : new String[] {"send", "receive"}) {
            long[] counts = byType.get(type);
            bytes += counts == null ? 0 : counts[column];
        }
        return (double) bytes / messages;
    }
}
