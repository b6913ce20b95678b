package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.explore.CriticalTransition;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.LivenessSearch;
import dev.deja.explore.RecordedLiveness;
import dev.deja.sim.RecordedNetwork;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.TraceStart;
import dev.deja.text.TextTable;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code deja check --classify-liveness}: the open spans of a report classified dead or transient by random walks from
 * the state replay rebuilds at the trace's end ({@link RecordedLiveness}), printed as a table and added to the JSON.
 */
final class LivenessColumn {
    /** Walks beyond the recording when no --max-depth is given (MaceMC's dmax is in the tens of thousands). */
    static final int EXTRA_DEPTH = 10_000;

    private static final ObjectMapper JSON = JsonMapper.builder().findAndAddModules().build();

    private LivenessColumn() {
    }

    /**
     * What the walks of one classification ran on and where the nearest live runs go.
     *
     * @param faults    the fault options given, on top of the recorded network
     * @param faultArgs the same options as command-line words, for the reproduce commands
     * @param out       where each dead span's nearest live run is written
     */
    record Walks(NetworkFaultOptions faults, List<String> faultArgs, Path out) {
    }

    /** The classified spans, with the network their walks ran on. */
    record Classified(Map<Violation, RecordedLiveness.Classification> spans, String network) {
        static final Classified NONE = new Classified(Map.of(), "");
    }

    /**
     * Classifies every span of {@code report} still open at the end, in report order; for a dead span whose critical
     * transition was found, writes the nearest live run (the walk that reached a live state from the recorded state
     * before the critical step) into {@code walks.out()}, with its schedule and the commands to write it again and to
     * compare it with the recording.
     */
    static Classified classify(CheckReport report, Path trace, Path script, ClassLoader loader, int walks,
                               Integer maxDepth, long seed, Duration predicateTimeout, Walks how) {
        List<Violation> open = report.violations().stream().filter(Violation::openAtEnd).toList();
        Map<Violation, RecordedLiveness.Classification> out = new LinkedHashMap<>();
        if (open.isEmpty()) {
            return new Classified(out, "");
        }
        TraceStart.Recording recording = TraceStart.Recording.read(trace);
        int depth = maxDepth != null ? maxDepth : (int) Math.min(Integer.MAX_VALUE, recording.handlerCalls() + EXTRA_DEPTH);
        if (depth <= recording.handlerCalls()) {
            throw new IllegalArgumentException("--max-depth " + depth + " leaves the walks no room: " + trace + " already has "
                    + recording.handlerCalls() + " handler calls, and dmax counts from the trace's start");
        }
        TraceStart end = new TraceStart(recording.entries() - 1, recording);
        SimulationSettings settings = FromTraceOptions.settingsOf(end, how.faults())
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).maxSteps(depth).seed(seed).build();
        String network = network(RecordedNetwork.of(recording), how.faultArgs());
        ExploreSettings explore = ExploreSettings.builder().seed(seed).workers(1).maxDepth(depth).build();
        Explorer.Options options = Explorer.Options.defaults().withScript(script).withClassLoader(loader)
                .withPredicateTimeout(predicateTimeout).withScriptOutput(OutputStream.nullOutputStream());
        LivenessSearch.Reproduce reproduce = (schedule, written, from) -> reproduce(trace, from.orElse(end), how.faultArgs(),
                seed, depth, schedule, written);
        try (Progress progress = Progress.start("liveness", open.size(), "spans")) {
            for (Violation span : open) {
                RecordedLiveness.Classification classified = RecordedLiveness.classify(recording, span.predicate(),
                        span.event().position(), settings, explore, walks, true, options);
                if (classified.critical().flatMap(CriticalTransition::nearestLive).isPresent()) {
                    classified = classified.withCritical(LivenessSearch.writeNearestLive(classified.critical().get(),
                            settings, trace, how.out(), loader, reproduce, (violating, live) -> "./deja view "
                                    + DeployCommand.quoted(violating.toString()) + " --compare "
                                    + DeployCommand.quoted(live.toString())));
                }
                out.put(span, classified);
                progress.stepTo(out.size());
            }
        }
        return new Classified(out, network);
    }

    /** The walks' network in words: the recorded one, and the options given on top. */
    private static String network(RecordedNetwork recorded, List<String> faultArgs) {
        return "the recorded network, " + recorded.describe()
                + (faultArgs.isEmpty() ? "" : ", changed by " + String.join(" ", faultArgs));
    }

    /**
     * The simulate command that writes a walk's trace again: the same state, network, seed and answers, bounded by
     * steps alone as the walks were (dmax; the schedule ends the run at its own last step).
     */
    private static String reproduce(Path trace, TraceStart from, List<String> faultArgs, long seed, long steps,
                                    Path schedule, Path written) {
        List<String> words = new ArrayList<>(List.of("./deja", "simulate", "--from", DeployCommand.quoted(trace.toString()),
                "--at", Long.toString(from.position())));
        faultArgs.forEach(word -> words.add(DeployCommand.quoted(word)));
        words.addAll(List.of("--seed", Long.toString(seed), "--steps", Long.toString(steps), "--schedule",
                DeployCommand.quoted(schedule.toString()), "--out", DeployCommand.quoted(written.toString())));
        return String.join(" ", words);
    }

    /** The verdicts as a table with the figures behind each, and each dead span's nearest live run. */
    static void print(Classified classified, PrintStream out) {
        Map<Violation, RecordedLiveness.Classification> liveness = classified.spans();
        if (liveness.isEmpty()) {
            out.println("liveness: no @eventually span is open at the end of the trace");
            return;
        }
        TextTable table = TextTable.withColumns("PREDICATE", "OPENED", "VERDICT", "WALKS", "LIVE", "LIVE SHARE",
                "DEPTHS TO LIVE", "DMAX", "CRITICAL TRANSITION");
        liveness.forEach((span, c) -> table.row(c.predicate(), c.openedAt(), c.verdict().label(), c.walks(), c.live(),
                String.format(Locale.ROOT, "%.0f%%", 100 * c.liveShare()), depths(c.liveDepths()), c.maxDepth(),
                c.critical().map(LivenessColumn::critical).orElse("-")));
        out.print(table.render());
        out.println("liveness: walks of the simulated continuation from the state at the trace's end (handler call "
                + liveness.values().iterator().next().endStep() + "); depths count steps past the end, dmax from the start");
        out.println("liveness: the walks ran on " + classified.network());
        liveness.values().forEach(c -> c.critical().filter(t -> t.lastRecoverable() >= 0 && t.nearestLive().isEmpty())
                .ifPresent(t -> out.printf(Locale.ROOT, "%s: no nearest live run: none of %d walks from handler call %d "
                        + "reached a live state within dmax (raise --walks)%n", c.predicate(), t.walks(),
                        t.lastRecoverable())));
        liveness.values().forEach(c -> c.critical().ifPresent(t -> t.evidence().ifPresent(e -> e.liveTrace().ifPresent(live -> {
            CriticalTransition.LiveWalk walk = t.nearestLive().orElseThrow();
            out.printf(Locale.ROOT, "%s: nearest live run %s (a walk from handler call %d%s; live at step %d)%n",
                    c.predicate(), live, walk.prefix(), walk.start().map(start -> ", entry " + start.position()).orElse(""),
                    walk.liveAtStep());
            e.liveCommand().ifPresent(command -> out.println("  reproduce: " + command));
            e.compareCommand().ifPresent(command -> out.println("  compare:   " + command));
        }))));
        out.flush();
    }

    private static String depths(List<Long> depths) {
        if (depths.isEmpty()) {
            return "-";
        }
        return depths.size() == 1 ? depths.getFirst().toString() : depths.getFirst() + ".." + depths.getLast();
    }

    private static String critical(CriticalTransition c) {
        return c.verdict().label() + ": step " + c.step() + (c.node().isEmpty() ? "" : " " + c.node() + " " + c.event());
    }

    /** The report as JSON with a {@code liveness} object on every classified span. */
    static Map<String, Object> json(CheckReport report, Classified classified) {
        Map<Violation, RecordedLiveness.Classification> liveness = classified.spans();
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = JSON.convertValue(report, LinkedHashMap.class);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> violations = (List<Map<String, Object>>) tree.get("violations");
        for (int i = 0; i < report.violations().size(); i++) {
            RecordedLiveness.Classification c = liveness.get(report.violations().get(i));
            if (c != null) {
                violations.get(i).put("liveness", jsonOf(c));
            }
        }
        if (!classified.network().isEmpty()) {
            tree.put("livenessNetwork", classified.network());
        }
        return tree;
    }

    private static Map<String, Object> jsonOf(RecordedLiveness.Classification c) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("verdict", c.verdict().label());
        out.put("walks", c.walks());
        out.put("live", c.live());
        out.put("liveShare", c.liveShare());
        out.put("liveDepths", c.liveDepths());
        out.put("maxDepth", c.maxDepth());
        out.put("openedAtStep", c.openedAtStep());
        out.put("endStep", c.endStep());
        out.put("walkSteps", c.walkSteps());
        c.critical().ifPresent(t -> {
            Map<String, Object> critical = new LinkedHashMap<>();
            critical.put("verdict", t.verdict().label());
            critical.put("step", t.step());
            critical.put("node", t.node());
            critical.put("event", t.event());
            critical.put("message", t.message());
            critical.put("lastRecoverable", t.lastRecoverable());
            List<Map<String, Object>> probes = new ArrayList<>();
            for (CriticalTransition.Probe probe : t.probes()) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("prefix", probe.prefix());
                one.put("walks", probe.walks());
                one.put("live", probe.live());
                one.put("steps", probe.steps());
                probes.add(one);
            }
            critical.put("probes", probes);
            t.nearestLive().ifPresent(walk -> {
                Map<String, Object> live = new LinkedHashMap<>();
                live.put("prefix", walk.prefix());
                walk.start().ifPresent(start -> live.put("fromPosition", start.position()));
                live.put("liveAtStep", walk.liveAtStep());
                t.evidence().ifPresent(e -> {
                    e.liveTrace().ifPresent(v -> live.put("trace", v));
                    e.liveSchedule().ifPresent(v -> live.put("schedule", v));
                    e.liveCommand().ifPresent(v -> live.put("reproduce", v));
                    e.compareCommand().ifPresent(v -> live.put("compare", v));
                });
                critical.put("nearestLive", live);
            });
            out.put("critical", critical);
        });
        return out;
    }
}
