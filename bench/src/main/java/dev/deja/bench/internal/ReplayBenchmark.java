package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.BenchPlan;
import dev.deja.bench.Summary;
import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.runtime.Deployment;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Replay speed: entries per second replaying a long simulated key-value trace on the calling thread (by wall time
 * and by the thread's own CPU time, which a busy machine disturbs less), and for a timer-driven loopback
 * deployment (Paxos, whose leaders sleep random periods between rounds) the recorded run's wall time over its
 * replay time.
 */
final class ReplayBenchmark {
    private final Workspace workspace;

    ReplayBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    /** Fills {@code replay_events_per_s} and {@code replay_speedup_over_recorded_run} in {@code results}. */
    void run(ObjectNode results) throws Exception {
        BenchPlan plan = workspace.plan();
        Progress progress = workspace.progress();
        Path trace = workspace.kvTrace(plan.replayEntries());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Double> wall = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        long[] entries = {0};
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults()); // warm-up
        for (int round = 1; round <= plan.rounds(); round++) {
            long cpuBefore = threads.getCurrentThreadCpuTime();
            ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
            long cpuNanos = threads.getCurrentThreadCpuTime() - cpuBefore;
            requireClean(result, trace);
            entries[0] = result.entries();
            wall.add(result.entriesPerSecond());
            cpu.add(result.entries() / (cpuNanos / 1e9));
            progress.say("replay: round %d/%d: %d entries in %.2f s (%.0f entries/s, %.0f per CPU-second)", round,
                    plan.rounds(), result.entries(), result.elapsed().toNanos() / 1e9, result.entriesPerSecond(),
                    cpu.getLast());
        }
        ObjectNode replay = Results.summary(Summary.of(wall));
        replay.put("unit", "trace entries replayed per second of wall time, one replay thread");
        replay.put("trace_entries", entries[0]);
        replay.put("trace", "simulated 3-replica key-value store (closed-loop client)");
        replay.set("per_cpu_second", Results.summary(Summary.of(cpu)));
        if (entries[0] < 1_000_000) {
            replay.put("note", "shorter than a million entries (the " + plan.name() + " plan); the full plan replays "
                    + "at least a million");
        }
        results.set("replay_events_per_s", replay);
        results.set("replay_speedup_over_recorded_run", timerDriven(plan, progress));
    }

    private ObjectNode timerDriven(BenchPlan plan, Progress progress) throws Exception {
        Path trace = workspace.path("replay/paxos-deployment");
        Deployment.Plan deployment = ExampleDeployment.builder(new PaxosExample()).nodes(7).dropProbability(0.3)
                .duration(Duration.ofSeconds(30)).record(trace).workDirectory(workspace.path("replay/paxos-work"))
                .command("deja bench (timer-driven deployment)").build().plan();
        new Deployment(deployment, new PrintStream(OutputStream.nullOutputStream())).run();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (NodeLog log : Trace.open(trace).nodes()) {
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent event = cursor.next();
                    first = Math.min(first, event.atMillis());
                    last = Math.max(last, event.atMillis());
                }
            }
        }
        long recordedMillis = last - first;
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults()); // warm-up
        List<Double> ratios = new ArrayList<>();
        long entries = 0;
        for (int round = 1; round <= plan.rounds(); round++) {
            ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
            requireClean(result, trace);
            entries = result.entries();
            ratios.add(recordedMillis / (result.elapsed().toNanos() / 1e6));
        }
        progress.say("replay: timer-driven Paxos deployment: %d entries recorded over %d ms, replayed %.0fx faster"
                + " (median)", entries, recordedMillis, Summary.of(ratios).median());
        ObjectNode node = Results.summary(Summary.of(ratios));
        node.put("unit", "recorded wall time / replay time");
        node.put("deployment", "Paxos, 7 processes on loopback, 30% message loss, until every node decided");
        node.put("recorded_millis", recordedMillis);
        node.put("entries", entries);
        node.put("paper", "WiDS replay was 2-4x faster than the run");
        return node;
    }

    static void requireClean(ReplayResult result, Path trace) {
        if (!result.divergences().isEmpty()) {
            throw new IllegalStateException("the replay of " + trace + " diverged: "
                    + result.divergences().getFirst().describe());
        }
    }
}
