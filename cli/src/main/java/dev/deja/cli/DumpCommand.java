package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.trace.EventJson;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLog;
import dev.deja.trace.NodeManifest;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Prints every event of a trace in per-node order. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = {"Print every recorded event of a trace, node by node, in per-node order.",
                "Reads the trace without changing it; stops at the first corrupted entry with an error naming "
                        + "the file, node, entry index and byte offset."},
        footer = {"", "Examples:", "  ./deja dump traces/paxos --node n1 --node n2",
                "  ./deja dump traces/paxos --json | head -n 3", "  ./deja dump traces/paxos --json events.json"})
public final class DumpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = "--node", paramLabel = "ID", converter = Converters.Node.class, description = "Only this node (repeatable).")
    List<NodeId> nodes = new ArrayList<>();

    /** JSON Lines: one object per event. */
    @CommandLine.Mixin
    JsonOutput json;

    @Override
    public Integer call() throws IOException {
        Trace opened = Trace.open(trace);
        List<NodeLog> logs = nodes.isEmpty() ? opened.nodes()
                : nodes.stream().distinct().map(opened::node).toList();
        MessageCodec codec = MessageCodec.defaultCodec();
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        JsonOutput.Lines lines = json.openLines();
        try (Progress progress = Progress.start("dump", logs.stream().mapToLong(NodeLog::entryCount).sum(), "events")) {
            for (NodeLog log : logs) {
                if (lines == null) {
                    out.println(header(log.manifest()));
                }
                try (NodeLog.Cursor cursor = log.cursor()) {
                    while (cursor.hasNext()) {
                        TraceEvent event = cursor.next();
                        if (lines != null) {
                            lines.write(EventJson.toJson(event, codec));
                        } else {
                            out.println(EventJson.toText(event, codec));
                        }
                        progress.stepBy(1);
                    }
                }
            }
        } finally {
            out.flush();
            if (lines != null) {
                lines.close();
            }
        }
        return ExitCodes.OK;
    }

    private static String header(NodeManifest manifest) {
        StringBuilder line = new StringBuilder("# node " + manifest.node() + " (" + manifest.nodeClass() + "), "
                + manifest.incarnations().size() + " incarnation(s), recording "
                + (manifest.completed() ? "completed" : "NOT completed (the node was killed or is still running)"));
        return line.toString();
    }
}
