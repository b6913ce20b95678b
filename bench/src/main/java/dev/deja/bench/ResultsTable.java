package dev.deja.bench;

import com.fasterxml.jackson.databind.JsonNode;
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
        int[] widths = new int[5];
        for (String[] row : table.rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (int r = 0; r < table.rows.size(); r++) {
            String[] row = table.rows.get(r);
            out.append('|');
            for (int i = 0; i < row.length; i++) {
                String cell = i == 0 ? pad(row[i], widths[i]) : padLeft(row[i], widths[i]);
                out.append(' ').append(cell).append(" |");
            }
            out.append('\n');
            if (r == 0) {
                out.append('|');
                for (int i = 0; i < row.length; i++) {
                    out.append(i == 0 ? "-".repeat(widths[i] + 2) : "-".repeat(widths[i] + 1) + ":").append('|');
                }
                out.append('\n');
            }
        }
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
                single("explore " + run.replace('_', ' ') + ": steps/s (per CPU s), paths/s",
                        number(figures.path("steps_per_s")) + " (" + number(figures.path("steps_per_cpu_s")) + "), "
                                + number(figures.path("paths_per_s")));
            }
            explore.path("first_latest_response_violation_s").properties().forEach(e -> single(
                    "  first latest-response violation, " + e.getKey().replace('_', ' ') + ", s",
                    e.getValue().path("found").asBoolean() ? number(e.getValue().path("seconds")) : "not found in "
                            + number(e.getValue().path("seconds"))));
        } else if (explore.isObject()) {
            single("explore", "not measured: " + explore.path("reason").asText("not run"));
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

    private static String pad(String s, int width) {
        return s + " ".repeat(width - s.length());
    }

    private static String padLeft(String s, int width) {
        return " ".repeat(width - s.length()) + s;
    }
}
