package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.replay.Divergence;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.CodeFingerprint;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.Locale;
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
        footer = {"", "Example:", "  deja replay traces/paxos", "  deja replay traces/paxos --node n2 --until 500",
                "  deja replay traces/mine --classpath build/libs/*"})
public final class ReplayCommand implements Callable<Integer> {
    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = "--until", paramLabel = "POSITION",
            description = "Stop after POSITION entries of the merged trace (all entries, not only handler calls).")
    Long until;

    @Option(names = "--node", paramLabel = "ID", description = "Replay only this node (its own log holds its messages).")
    String node;

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
        if (until != null) {
            options = options.withUntilPosition(until);
        }
        if (node != null) {
            options = options.withOnlyNode(new NodeId(node));
        }
        Trace opened = Trace.open(trace);
        // Before replaying: a replay of other code than the recorded one diverges, or runs what was not recorded.
        for (String difference : CodeFingerprint.differences(opened, options.classLoader())) {
            spec.commandLine().getErr().println("deja replay: warning: " + difference + "; the replay may diverge");
        }
        ReplayProgress progress = ReplayProgress.forLogs("replay", ReplayProgress.logsOf(opened, node),
                options.untilPosition());
        ReplayResult result;
        if (progress == null) {
            result = Replayer.replay(opened, options);
        } else {
            try (progress) {
                result = Replayer.replay(opened, options.withListener(progress));
            }
        }
        for (Divergence divergence : result.divergences()) {
            System.out.print(divergence.describe());
        }
        System.out.printf(Locale.ROOT, "replayed %d events of %d nodes in %.2f s (%.0f events/s), divergences: %d%n",
                result.entries(), result.nodes(), result.elapsed().toNanos() / 1e9, result.entriesPerSecond(),
                result.divergences().size());
        return result.divergences().isEmpty() ? 0 : 1;
    }
}
