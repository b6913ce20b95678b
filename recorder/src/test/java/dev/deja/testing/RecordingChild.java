package dev.deja.testing;

import dev.deja.node.NodeId;
import dev.deja.trace.NodeLogWriter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A process that records pseudo-random entries as fast as it can until it is killed, in handler calls of 1 to 8
 * entries (one queue document each), printing {@code appended SEQ} after each call ends, so the parent knows which
 * entries were completed. Usage: {@code RecordingChild TRACE_DIR SEED}.
 */
public final class RecordingChild {
    private RecordingChild() {
    }

    public static void main(String[] args) {
        Path trace = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        NodeId node = new NodeId("n1");
        SplittableRandom callSizes = new SplittableRandom(seed);
        PrintStream out = new PrintStream(System.out, false);
        NodeLogWriter writer = NodeLogWriter.open(trace, node, "test.Node", "test", 1, 0);
        out.println("ready");
        out.flush();
        for (long seq = 0; ; ) {
            writer.beginHandler();
            for (int i = callSizes.nextInt(1, 9); i > 0; i--, seq++) {
                writer.append(TraceEvents.pseudoRandom(node, seed, seq));
            }
            writer.endHandler();
            out.println("appended " + (seq - 1));
            out.flush();
        }
    }
}
