package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.BenchSettings;
import dev.deja.bench.Section;
import java.util.List;

/**
 * Runs the sections a benchmark run asked for, in {@link Section} order, and assembles the results tree. A
 * section that was not asked for leaves its keys saying so, so the results always have the same top-level keys.
 */
public final class BenchRunner {
    /** The results format; bumped when a key changes meaning. */
    public static final int FORMAT = 1;

    private BenchRunner() {
    }

    /** Runs {@code settings} and returns the results tree; progress lines go to {@code progress}. */
    public static ObjectNode run(BenchSettings settings, Progress progress) throws Exception {
        long startNanos = System.nanoTime();
        Workspace workspace = new Workspace(settings, progress);
        ObjectNode results = Results.object();
        results.put("format", FORMAT);
        results.put("plan", settings.plan().name());
        results.set("machine", Machine.describe());
        var sections = results.putArray("sections");
        settings.sections().stream().sorted().forEach(s -> sections.add(s.cliName()));
        progress.say("plan %s, %d rounds per comparison, sections %s; work directory %s", settings.plan().name(),
                settings.plan().rounds(), settings.sections().stream().sorted().map(Section::cliName).toList(),
                settings.workDirectory());

        if (settings.sections().contains(Section.RECORDING)) {
            results.set("recording_overhead_pct", new RecordingBenchmark(workspace).run());
        } else {
            notRun(results, Section.RECORDING, "recording_overhead_pct");
        }
        if (settings.sections().contains(Section.TRACE_SIZE)) {
            results.set("bytes_per_event", new TraceSizeBenchmark(workspace).run());
        } else {
            notRun(results, Section.TRACE_SIZE, "bytes_per_event");
        }
        if (settings.sections().contains(Section.REPLAY)) {
            new ReplayBenchmark(workspace).run(results);
        } else {
            notRun(results, Section.REPLAY, "replay_events_per_s", "replay_speedup_over_recorded_run");
        }
        if (settings.sections().contains(Section.CHECK)) {
            new CheckBenchmark(workspace).run(results);
        } else {
            notRun(results, Section.CHECK, "check_slowdown", "recheck_from_history_speedup", "json_dump_baseline");
        }
        if (settings.sections().contains(Section.SIMULATION)) {
            results.set("sim_events_per_s", new SimulationBenchmark(workspace).run());
        } else {
            notRun(results, Section.SIMULATION, "sim_events_per_s");
        }
        if (settings.sections().contains(Section.EXPLORE)) {
            results.set("explore", new ExploreBenchmark(workspace).run());
        } else {
            notRun(results, Section.EXPLORE, "explore");
        }
        if (settings.sections().contains(Section.LIVENESS)) {
            results.set("liveness", new LivenessBenchmark(workspace).run());
        } else {
            notRun(results, Section.LIVENESS, "liveness");
        }
        if (settings.sections().contains(Section.VIEWER)) {
            results.set("viewer", new ViewerSection(workspace).run());
        } else {
            notRun(results, Section.VIEWER, "viewer");
        }
        results.put("seconds", Results.round((System.nanoTime() - startNanos) / 1e9));
        ((ObjectNode) results.get("machine")).put("load_average_at_end", Results.round(Machine.loadAverage()));
        return results;
    }

    private static void notRun(ObjectNode results, Section section, String... keys) {
        for (String key : List.of(keys)) {
            ObjectNode node = results.putObject(key);
            node.put("measured", false);
            node.put("reason", "the " + section.cliName() + " section was not run");
        }
    }
}
