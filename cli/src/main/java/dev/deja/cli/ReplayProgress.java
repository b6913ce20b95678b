package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayListener;
import dev.deja.replay.ReplayState;
import dev.deja.replay.ReplayedEvent;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.io.Console;
import java.util.List;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar on standard error for long replays, shown only when the output is a terminal (a bar in a
 * redirected log is noise). Updates the bar every few thousand entries so it costs nothing measurable.
 */
final class ReplayProgress implements ReplayListener, AutoCloseable {
    /** Traces shorter than this replay in about a second: no bar. */
    static final long MINIMUM_ENTRIES = 200_000;
    private static final long UPDATE_EVERY = 8_192;

    private final ProgressBar bar;
    private long pending;

    private ReplayProgress(ProgressBar bar) {
        this.bar = bar;
    }

    /** A progress listener for replaying {@code logs}, or null when no bar should be shown. */
    static ReplayProgress forLogs(String task, List<NodeLog> logs, long untilPosition) {
        Console console = System.console();
        if (console == null || !console.isTerminal()) {
            return null;
        }
        long total = 0;
        for (NodeLog log : logs) {
            total += log.entryCount();
        }
        total = Math.min(total, untilPosition);
        if (total < MINIMUM_ENTRIES) {
            return null;
        }
        return new ReplayProgress(new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII).setUnit(" events", 1).showSpeed().continuousUpdate()
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).build());
    }

    /** The logs a replay of {@code trace} reads, for sizing the bar. */
    static List<NodeLog> logsOf(Trace trace, String onlyNode) {
        return onlyNode == null ? trace.nodes() : List.of(trace.node(new NodeId(onlyNode)));
    }

    @Override
    public void afterEvent(ReplayedEvent event, long position, ReplayState state) {
        if (++pending == UPDATE_EVERY) {
            bar.stepBy(pending);
            pending = 0;
        }
    }

    @Override
    public void close() {
        bar.stepBy(pending);
        pending = 0;
        bar.close();
    }
}
