package dev.deja.testing;

import dev.deja.node.NodeId;
import dev.deja.trace.NodeLogWriter;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * A process that records pseudo-random entries as fast as it can until it is killed, printing
 * {@code appended SEQ} after each append returns, so the parent knows which entries were completed.
 * Usage: {@code RecordingChild TRACE_DIR SEED}.
 */
public final class RecordingChild {
    private RecordingChild() {
    }

    public static void main(String[] args) {
        Path trace = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        NodeId node = new NodeId("n1");
        PrintStream out = new PrintStream(System.out, false);
        NodeLogWriter writer = NodeLogWriter.open(trace, node, "test.Node", "test", 1, 0);
        out.println("ready");
        out.flush();
        for (long seq = 0; ; seq++) {
            writer.append(TraceEvents.pseudoRandom(node, seed, seq));
            out.println("appended " + seq);
            out.flush();
        }
    }
}
