package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.replay.Divergence;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.replay.ReplayListener;
import dev.deja.replay.ReplayState;
import dev.deja.replay.ReplayedEvent;
import dev.deja.trace.CodeFingerprint;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Replays a trace in this process and reports where nodes diverge from their recording. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Replay a recorded trace in one process, in happens-before order: every node is run again "
                + "from its recorded inputs and what it does is compared with the recording.",
                "Prints each divergence (node, incarnation, seq, expected, actual, the node's last events), then one "
                        + "summary line. Exit code 1 if any node diverged."},
        footer = {"", "Examples:", "  ./deja replay traces/paxos", "  ./deja replay traces/paxos --node n2 --node n3 --to 499",
                "  ./deja replay traces/paxos --json replay.json",
                "  ./deja replay traces/mine --classpath 'build/libs/*'"})
public final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = "--to", paramLabel = "POS", converter = Converters.Position.class,
            description = "Stop after the entry at this position of the merged trace (all entries, not only handler calls).")
    Long to;

    /** The old option: stop after N entries, i.e. {@code --to N-1}. */
    @Option(names = "--until", hidden = true, paramLabel = "N", converter = Converters.Position.class)
    Long until;

    @CommandLine.Mixin
    JsonOutput json;

    @Option(names = "--node", paramLabel = "ID", converter = Converters.Node.class,
            description = "Replay only this node (repeatable): each node's own log holds the messages it received.")
    List<NodeId> nodes = new ArrayList<>();

    @Option(names = "--keep-going", description = "Report every diverging node instead of stopping at the first "
            + "divergence (a diverged node is not replayed further).")
    boolean keepGoing;

    @Option(names = "--partial", description = "Replay even if some node's log is missing from the trace.")
    boolean partial;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        Replayer.Options options = Replayer.Options.defaults().withKeepGoing(keepGoing).withPartial(partial)
                .withClassLoader(UserClasspath.loader(classpath));
        if (to != null && until != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--until is the old spelling of --to; give one");
        }
        if (to != null) {
            options = options.withUntilPosition(to + 1);
        } else if (until != null) {
            options = options.withUntilPosition(until);
        }
        options = options.withOnlyNodes(nodes);
        Trace opened = Trace.open(trace);
        // Before replaying: a replay of other code than the recorded one diverges, or runs what was not recorded.
        for (String difference : CodeFingerprint.differences(opened, options.classLoader())) {
            spec.commandLine().getErr().println("deja replay: warning: " + difference + "; the replay may diverge");
        }
        List<NodeLog> logs = nodes.isEmpty() ? opened.nodes() : nodes.stream().distinct().map(opened::node).toList();
        long total = Math.min(logs.stream().mapToLong(NodeLog::entryCount).sum(), options.untilPosition());
        ReplayResult result;
        try (Progress progress = Progress.start("replay", total, "events")) {
            result = Replayer.replay(opened, options.withListener(new ReplayListener() {
                private long done;

                @Override
                public void afterEvent(ReplayedEvent event, long position, ReplayState state) {
                    progress.stepTo(++done);
                }
            }));
        }
        PrintStream out = json.toStandardOutput() ? System.err : System.out;
        for (Divergence divergence : result.divergences()) {
            out.print(divergence.describe());
        }
        // The same words and numbers as deja check: handler calls (what check evaluates), then all entries.
        out.printf(Locale.ROOT, "replayed %d handler calls (%d entries) of %d nodes in %.2f s (%.0f entries/s), "
                        + "divergences: %d%n", result.handlerCalls(), result.entries(), result.nodes(), result.elapsed().toNanos() / 1e9, result.entriesPerSecond(),
                result.divergences().size());
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("trace", trace.toString());
        summary.put("entries", result.entries());
        summary.put("nodes", result.nodes());
        summary.put("seconds", result.elapsed().toNanos() / 1e9);
        summary.put("entriesPerSecond", result.entriesPerSecond());
        summary.put("divergences", result.divergences().stream().map(d -> {
            Map<String, Object> divergence = new LinkedHashMap<>();
            divergence.put("node", d.node().value());
            divergence.put("incarnation", d.incarnation());
            divergence.put("seq", d.seq());
            divergence.put("lamport", d.lamport());
            divergence.put("expected", d.expected());
            divergence.put("actual", d.actual());
            return divergence;
        }).toList());
        json.write(summary);
        return result.divergences().isEmpty() ? ExitCodes.OK : ExitCodes.FINDINGS;
    }
}
