package dev.deja.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.deja.text.TextTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Renders a results tree as a Markdown table, one figure per row, under a line naming the machine. */
final class ResultsTable {
    private final List<String[]> rows = new ArrayList<>();

    private ResultsTable() {
    }

    static String render(JsonNode results) {
        ResultsTable table = new ResultsTable();
        table.fill(results);
        StringBuilder out = new StringBuilder();
        out.append(machineLine(results)).append("\n\n");
        String[] headers = table.rows.getFirst();
        TextTable markdown = TextTable.withColumns(headers);
        for (int i = 1; i < headers.length; i++) {
            markdown.align(i, TextTable.Alignment.RIGHT);
        }
        table.rows.subList(1, table.rows.size()).forEach(row -> markdown.row((Object[]) row));
        out.append(markdown.renderMarkdown());
        return out.toString();
    }

    private static String machineLine(JsonNode results) {
        JsonNode m = results.path("machine");
        String memory = m.has("memory_bytes")
                ? String.format(Locale.ROOT, "%.0f GiB", m.get("memory_bytes").asDouble() / (1L << 30)) : "? GiB";
        return String.format(Locale.ROOT, "Plan %s, %s on %s, %d cores, %s, %s, %s (load average %s at the start, %s at"
                        + " the end), %s s.", results.path("plan").asText("?"), m.path("date").asText("?"),
                m.path("cpu").asText("an unknown CPU"), m.path("cores").asInt(), memory, m.path("jdk").asText("?"),
                m.path("os").asText("?"), number(m.path("load_average_at_start")), number(m.path("load_average_at_end")),
                number(results.path("seconds")));
    }

    private void fill(JsonNode r) {
        rows.add(new String[] {"figure", "median", "min", "max", "goal"});
        JsonNode recording = r.path("recording_overhead_pct");
        if (measured(recording, "recording overhead (key-value ops/s lost)")) {
            summary("recording overhead (key-value ops/s lost)", recording, "%", "< 1 %");
            summary("  the same events as SLF4J + Logback JSON instead", recording.path("slf4j_json_logging"), "%", "");
            JsonNode paced = recording.path("fixed_rate_node_cpu_overhead_pct");
            String atRate = "    the same at a fixed " + number(paced.path("ops_per_s")) + " ops/s";
            summary("  node CPU time per operation, recording on vs off", recording.path("node_cpu_overhead_pct"), "%", "");
            summary(atRate, paced, "%", "");
            summary("  node CPU time per operation, SLF4J JSON vs off",
                    recording.path("slf4j_json_logging").path("node_cpu_overhead_pct"), "%", "");
            summary(atRate, paced.path("slf4j_json_logging"), "%", "");
            summary("  key-value ops/s, recording off", recording.path("ops_per_s_off"), "", "");
            summary("  key-value ops/s, recording on", recording.path("ops_per_s_recording"), "", "");
        }
        JsonNode bytes = r.path("bytes_per_event");
        if (measured(bytes, "bytes per event")) {
            single("bytes per event, stored (LZ4 where it pays)", number(bytes.path("stored")));
            single("  raw (no compression) / on disk", number(bytes.path("raw")) + " / " + number(bytes.path("on_disk")));
            single("  bytes per message (send + receive), stored / raw", number(bytes.path("stored_per_message")) + " / "
                    + number(bytes.path("raw_per_message")));
            JsonNode logged = r.path("recording_overhead_pct").path("slf4j_json_logging").path("bytes_per_event");
            if (logged.isNumber()) {
                single("  bytes per event in the SLF4J JSON log", number(logged));
            }
            List<String> entries = new ArrayList<>();
            List<String> stored = new ArrayList<>();
            for (JsonNode point : bytes.path("growth")) {
                entries.add(count(point.path("entries").asLong()));
                stored.add(number(point.path("stored")) + " / " + number(point.path("on_disk")));
            }
            if (!entries.isEmpty()) {
                single("  stored / on disk at " + String.join(", ", entries) + " entries", String.join(", ", stored));
            }
        }
        JsonNode replay = r.path("replay_events_per_s");
        if (measured(replay, "replay entries/s")) {
            summary("replay entries/s (" + count(replay.path("trace_entries").asLong()) + " entries, one thread)",
                    replay, "", "");
            JsonNode timer = r.path("replay_speedup_over_recorded_run");
            summary("  timer-driven Paxos run: recorded time / replay time", timer, "x", "> 4 x");
        }
        JsonNode check = r.path("check_slowdown");
        if (measured(check, "checked / plain replay")) {
            check.path("per_example").properties().forEach(e ->
                    summary("checked / plain replay (" + e.getKey() + ", " + count(e.getValue().path("events_checked")
                            .asLong()) + " events)", e.getValue(), "x", "<= 3 x"));
            check.path("per_example").properties().forEach(e -> {
                JsonNode later = e.getValue().path("later_rounds");
                if (later.has("median")) {
                    summary("  the same after " + later.path("checks_before").asLong() + " checks (" + e.getKey() + ")",
                            later, "x", "");
                }
            });
            if (check.has("skipped")) {
                single("  left out", check.path("skipped").asText());
            }
            r.path("recheck_from_history_speedup").path("per_example").properties().forEach(e ->
                    summary("  full check / re-check from history (" + e.getKey() + ")", e.getValue(), "x", ""));
            r.path("recheck_from_history_speedup").path("per_example").properties().forEach(e ->
                    summary("  full check / re-check, one predicate edited (" + e.getKey() + ")",
                            e.getValue().path("full_check_over_edited_recheck"), "x", ">= 10 x"));
            r.path("recheck_from_history_speedup").path("per_example").properties().forEach(e -> {
                JsonNode later = e.getValue().path("later_rounds").path("full_check_over_edited_recheck");
                if (later.has("median")) {
                    summary("  the same after " + e.getValue().path("later_rounds").path("checks_before").asLong()
                            + " checks (" + e.getKey() + ")", later, "x", "");
                }
            });
            r.path("one_shot_check").properties().forEach(e -> {
                if (!e.getValue().isObject()) {
                    single("  one-shot deja check (" + e.getKey() + ")", e.getValue().asText());
                    return;
                }
                String events = count(e.getValue().path("events_checked").asLong()) + " events";
                for (String mode : new String[] {"cold", "warm"}) {
                    JsonNode side = e.getValue().path(mode);
                    String engine = mode.equals("cold") ? "new JVM" : "warm engine";
                    if (side.has("first_full_check_of_the_script")) {
                        summary("  one-shot full check, " + engine + ", its first of the script (" + e.getKey() + ")",
                                side.path("first_full_check_of_the_script"), "s", "");
                    }
                    summary("  one-shot full check, " + engine + " (" + e.getKey() + ", " + events + ")",
                            side.path("full_check"), "s", mode.equals("cold") ? "< 3 s" : "");
                    summary("  one-shot re-check, nothing edited, " + engine + " (" + e.getKey() + ")",
                            side.path("re-check_nothing_edited"), "s", mode.equals("warm") ? "< 1 s at 50,000 events" : "");
                    summary("  one-shot re-check, one predicate edited, " + engine + " (" + e.getKey() + ")",
                            side.path("re-check_one_predicate_edited"), "s", "");
                }
            });
            r.path("json_dump_baseline").properties().forEach(e -> {
                if (e.getValue().isObject()) {
                    summary("  JSON dumps + CPython / deja check (" + e.getKey() + "), time", e.getValue(), "x", "");
                    single("  JSON dumps / (trace + history) (" + e.getKey() + "), disk",
                            number(e.getValue().path("disk_ratio")) + " x");
                } else {
                    single("  JSON dumps + CPython (" + e.getKey() + ")", e.getValue().asText());
                }
            });
        }
        JsonNode sim = r.path("sim_events_per_s");
        if (measured(sim, "simulated steps/s")) {
            sim.path("per_example").properties().forEach(e ->
                    summary("simulated steps/s (" + e.getKey() + ")", e.getValue(), "", ""));
            if (sim.has("skipped")) {
                single("  left out", sim.path("skipped").asText());
            }
        }
        JsonNode explore = r.path("explore");
        if (explore.isObject() && !explore.path("measured").isBoolean()) {
            for (String run : java.util.List.of("paxos_plain", "paxos_predicates", "chord_plain", "chord_predicates")) {
                JsonNode figures = explore.path(run);
                single("explore " + run.replace('_', ' ') + ": steps/s (per worker CPU s, per process CPU s), paths/s",
                        number(figures.path("steps_per_s")) + " (" + number(figures.path("steps_per_cpu_s")) + ", "
                                + (figures.has("steps_per_process_cpu_s")
                                        ? number(figures.path("steps_per_process_cpu_s")) : "-") + "), "
                                + number(figures.path("paths_per_s")));
            }
            explore.path("first_latest_response_violation_s").properties().forEach(e -> single(
                    "  first latest-response violation, " + e.getKey().replace('_', ' ') + ", s",
                    e.getValue().path("found").asBoolean() ? number(e.getValue().path("seconds")) : "not found in "
                            + number(e.getValue().path("seconds"))));
            JsonNode from = explore.path("from_trace");
            if (from.isObject()) {
                from.path("rebuild_ms").properties().forEach(e -> single("  explore --from: rebuild at the "
                        + e.getKey() + " of a Paxos trace (" + number(e.getValue().path("handler_calls")) + " calls), ms",
                        number(e.getValue().path("ms"))));
                single("  explore --from: paths/s from boot, from the half", number(from.path("paths_from_boot")
                        .path("paths_per_s")) + ", " + number(from.path("paths_from_half").path("paths_per_s")));
            }
        } else if (explore.isObject()) {
            single("explore", "not measured: " + explore.path("reason").asText("not run"));
        }
        JsonNode liveness = r.path("liveness");
        if (liveness.isObject() && !liveness.path("measured").isBoolean()) {
            for (String run : java.util.List.of("randtree_walks", "chord_walks", "randtree_two_trees_walks")) {
                JsonNode figures = liveness.path(run);
                if (figures.isMissingNode()) {
                    continue; // results of a run before the two-trees figures
                }
                single("liveness " + run.replace("_walks", "") + ": walks/s to dmax " + number(liveness.path("dmax"))
                        + " (per CPU s)", number(figures.path("walks_per_s")) + " (" + number(figures.path("walks_per_cpu_s"))
                        + ")");
            }
            JsonNode critical = liveness.path("chord_critical_transition");
            single("  chord succ-succ-hash: time to the critical transition, s", critical.path("found").asBoolean()
                    ? number(critical.path("seconds")) + " (" + critical.path("verdict").asText() + " at step "
                    + number(critical.path("step")) + ", " + critical.path("node").asText() + "; "
                    + number(critical.path("process_cpu_seconds")) + " CPU s)"
                    : "not found in " + number(critical.path("seconds")));
            JsonNode twoTrees = liveness.path("randtree_two_trees_critical_transition");
            if (twoTrees.isObject()) {
                single("  randtree two-trees no-recovery-timer: time to the critical transition, s",
                        twoTrees.path("found").asBoolean() ? number(twoTrees.path("seconds")) + " ("
                                + twoTrees.path("verdict").asText() + " at step " + twoTrees.path("step").asLong() + ", "
                                + twoTrees.path("node").asText() + " " + twoTrees.path("event").asText() + "; "
                                + number(twoTrees.path("process_cpu_seconds")) + " CPU s)"
                                : "not found in " + number(twoTrees.path("seconds")));
            }
            JsonNode recorded = liveness.path("recorded_lock_server");
            if (recorded.isObject()) {
                single("  lock server recording: CPU per walk, rebuild (replay alone) / walking on, ms",
                        number(recorded.path("prefix_cpu_ms_per_walk")) + " (" + number(recorded.path(
                                "replay_only_cpu_ms_per_walk")) + ") / " + number(recorded.path("walk_cpu_ms_per_walk"))
                                + " (" + recorded.path("walk_steps").asLong() / Math.max(1, recorded.path("walks")
                                .asLong()) + " steps)");
            }
        } else if (liveness.isObject()) {
            single("liveness", "not measured: " + liveness.path("reason").asText("not run"));
        }
        JsonNode viewer = r.path("viewer");
        if (viewer.path("measured").asBoolean(false)) {
            long entries = viewer.path("trace_entries").asLong(replay.path("trace_entries").asLong());
            single("viewer: open a " + count(entries) + "-entry trace, s",
                    number(viewer.path("open_seconds")));
            summary("  frame time while panning, ms", viewer.path("frame_millis"), "", "");
        } else {
            single("viewer", "not measured: " + viewer.path("reason").asText("not run"));
        }
    }

    /** Adds a "not measured" row and returns false when the section did not run. */
    private boolean measured(JsonNode node, String figure) {
        if (node.path("measured").isBoolean() && !node.path("measured").asBoolean()) {
            single(figure, "not measured: " + node.path("reason").asText());
            return false;
        }
        return !node.isMissingNode();
    }

    private void summary(String figure, JsonNode node, String unit, String goal) {
        if (!node.has("median")) {
            return;
        }
        String suffix = unit.isEmpty() ? "" : " " + unit;
        rows.add(new String[] {figure, number(node.get("median")) + suffix, number(node.get("min")) + suffix,
                number(node.get("max")) + suffix, goal});
    }

    private void single(String figure, String value) {
        rows.add(new String[] {figure, value, "", "", ""});
    }

    private static String number(JsonNode value) {
        if (!value.isNumber()) {
            return "?";
        }
        double v = value.asDouble();
        if (Math.abs(v) >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (Math.abs(v) >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
