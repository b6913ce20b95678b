package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.explore.CriticalTransition;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.RecordedLiveness;
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

    /** Classifies every span of {@code report} still open at the end, in report order. */
    static Map<Violation, RecordedLiveness.Classification> classify(CheckReport report, Path trace, Path script,
                                                                   ClassLoader loader, int walks, Integer maxDepth,
                                                                   long seed, Duration predicateTimeout) {
        List<Violation> open = report.violations().stream().filter(Violation::openAtEnd).toList();
        Map<Violation, RecordedLiveness.Classification> out = new LinkedHashMap<>();
        if (open.isEmpty()) {
            return out;
        }
        TraceStart.Recording recording = TraceStart.Recording.read(trace);
        int depth = maxDepth != null ? maxDepth : (int) Math.min(Integer.MAX_VALUE, recording.handlerCalls() + EXTRA_DEPTH);
        if (depth <= recording.handlerCalls()) {
            throw new IllegalArgumentException("--max-depth " + depth + " leaves the walks no room: " + trace + " already has "
                    + recording.handlerCalls() + " handler calls, and dmax counts from the trace's start");
        }
        SimulationSettings settings = FromTraceOptions.settingsOf(new TraceStart(recording.entries() - 1, recording),
                new FaultOptions()).maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).seed(seed).build();
        ExploreSettings explore = ExploreSettings.builder().seed(seed).workers(1).maxDepth(depth).build();
        Explorer.Options options = Explorer.Options.defaults().withScript(script).withClassLoader(loader)
                .withPredicateTimeout(predicateTimeout).withScriptOutput(OutputStream.nullOutputStream());
        try (Progress progress = Progress.start("liveness", open.size(), "spans")) {
            for (Violation span : open) {
                out.put(span, RecordedLiveness.classify(recording, span.predicate(), span.event().position(), settings,
                        explore, walks, true, options));
                progress.stepTo(out.size());
            }
        }
        return out;
    }

    /** The verdicts as a table with the figures behind each. */
    static void print(Map<Violation, RecordedLiveness.Classification> liveness, PrintStream out) {
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
    static Map<String, Object> json(CheckReport report, Map<Violation, RecordedLiveness.Classification> liveness) {
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
            out.put("critical", critical);
        });
        return out;
    }
}
