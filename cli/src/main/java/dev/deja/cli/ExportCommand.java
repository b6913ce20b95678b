package dev.deja.cli;

import dev.deja.view.ShiVizExport;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Writes a trace in a format other tools read. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Export a trace for other tools. --shiviz writes a log for ShiViz, the space-time diagram "
                + "viewer: its first line is the parsing expression, then per event a description line and the "
                + "node with the event's vector clock, computed from the recorded happens-before order (program "
                + "order per node, send before receive).",
                "By default starts, sends, receives, timer firings and crashes are exported; --all-entries adds the "
                        + "clock reads, random draws and storage reads."},
        footer = {"", "Examples:", "  ./deja export traces/paxos --shiviz paxos.shiviz.log",
                "  ./deja export traces/paxos --shiviz paxos.shiviz.log --json",
                "  (open ShiViz, choose 'upload a log' and pick the file)"})
public final class ExportCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = "--shiviz", required = true, paramLabel = "FILE", description = "Write a ShiViz log to FILE.")
    Path shiviz;

    @Option(names = "--all-entries", description = "Export every entry, not only messages and handler calls.")
    boolean allEntries;

    /** A summary: the trace, the file written, how many events of how many nodes. */
    @CommandLine.Mixin
    JsonOutput json;

    @Override
    public Integer call() {
        TraceModel model = ViewCommand.load(trace, "export");
        long written;
        try (Progress progress = Progress.start("export", model.size(), "events")) {
            written = ShiVizExport.write(model, allEntries ? ShiVizExport.Entries.ALL
                    : ShiVizExport.Entries.MESSAGES_AND_HANDLERS, shiviz, progress::stepTo);
        }
        // With the JSON on standard output, the line for humans goes to standard error.
        (json.toStandardOutput() ? System.err : System.out).printf(Locale.ROOT,
                "deja export: wrote %d events of %d nodes with vector clocks to %s%n", written, model.nodes().size(), shiviz);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("trace", trace.toString());
        summary.put("shiviz", shiviz.toString());
        summary.put("events", written);
        summary.put("nodes", model.nodes().size());
        json.write(summary);
        return ExitCodes.OK;
    }
}
