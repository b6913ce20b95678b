package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.node.NodeId;
import dev.deja.trace.EventJson;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLog;
import dev.deja.trace.NodeManifest;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceFormatException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Prints every event of a trace in per-node order. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = {"Print every recorded event of a trace, node by node, in per-node order.",
                "Reads the trace without changing it; stops at the first corrupted entry with an error naming "
                        + "the file, node, entry index and byte offset."})
public final class DumpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = "--node", paramLabel = "ID", description = "Only this node.")
    String node;

    @Option(names = "--json", description = "One JSON object per line (fields: see README).")
    boolean json;

    @Override
    public Integer call() throws IOException {
        Trace opened = Trace.open(trace);
        List<NodeLog> logs = node == null ? opened.nodes() : List.of(opened.node(new NodeId(node)));
        MessageCodec codec = MessageCodec.defaultCodec();
        ObjectMapper mapper = new ObjectMapper();
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        try {
            for (NodeLog log : logs) {
                if (!json) {
                    out.println(header(log.manifest()));
                }
                try (NodeLog.Cursor cursor = log.cursor()) {
                    while (cursor.hasNext()) {
                        TraceEvent event = cursor.next();
                        out.println(json ? mapper.writeValueAsString(EventJson.toJson(event, codec))
                                : EventJson.toText(event, codec));
                    }
                }
            }
        } catch (TraceFormatException e) {
            out.flush();
            throw e;
        } finally {
            out.flush();
        }
        return 0;
    }

    private static String header(NodeManifest manifest) {
        StringBuilder line = new StringBuilder("# node " + manifest.node() + " (" + manifest.nodeClass() + "), "
                + manifest.incarnations().size() + " incarnation(s), recording "
                + (manifest.completed() ? "completed" : "NOT completed (the node was killed or is still running)"));
        return line.toString();
    }
}
