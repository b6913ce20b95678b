package dev.deja.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny real runs of the harness: the results have every headline key, the sections that ran fill theirs with
 * sane values (not timings: this machine may be busy), and the others say they did not run.
 */
class BenchmarksIT {
    private static final BenchPlan TINY = new BenchPlan("tiny", 2, Duration.ofMillis(300), Duration.ofMillis(100),
            Duration.ofMillis(200), 3_000, List.of(1_000L, 4_000L), 500, 1_000, 3);

    @TempDir
    Path temporary;

    private BenchReport run(Set<Section> sections) throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        BenchReport report = Benchmarks.run(new BenchSettings(TINY, sections, temporary.resolve("work"), Path.of("..")),
                new PrintStream(progress, true, StandardCharsets.UTF_8));
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("bench [");
        Path file = temporary.resolve("results.json");
        report.write(file);
        BenchReport read = BenchReport.read(file);
        // Compared as text: a long written out reads back as an int node, which JsonNode.equals tells apart.
        assertThat(read.json().toString()).isEqualTo(report.json().toString());
        assertThat(read.table()).contains("| figure", "Plan tiny");
        return read;
    }

    @Test
    void run_ofTheInProcessSections_fillsTheirKeysAndMarksTheOthersNotRun() throws Exception {
        JsonNode results = run(EnumSet.of(Section.TRACE_SIZE, Section.SIMULATION, Section.VIEWER)).json();

        assertThat(results.fieldNames()).toIterable().containsAll(BenchReport.HEADLINE_KEYS);
        assertThat(results.path("machine").path("cores").asInt()).isPositive();
        assertThat(results.path("machine").path("memory_bytes").asLong()).isPositive();
        assertThat(results.path("machine").path("jdk").asText()).contains("25");
        assertThat(results.path("machine").path("date").asText()).isNotEmpty();

        JsonNode bytes = results.path("bytes_per_event");
        assertThat(bytes.path("stored").asDouble()).isPositive();
        assertThat(bytes.path("raw").asDouble()).isGreaterThanOrEqualTo(bytes.path("stored").asDouble());
        assertThat(bytes.path("growth")).hasSize(2);
        assertThat(bytes.path("growth").get(1).path("entries").asLong()).isGreaterThanOrEqualTo(4_000);
        assertThat(bytes.path("by_type").has("send")).isTrue();

        JsonNode sim = results.path("sim_events_per_s");
        assertSummary(sim, TINY.rounds());
        assertThat(sim.path("per_example").has("paxos")).isTrue();

        JsonNode viewer = results.path("viewer");
        assertThat(viewer.path("measured").asBoolean(false)).isTrue();
        assertThat(viewer.path("trace_entries").asLong()).isGreaterThanOrEqualTo(TINY.replayEntries());
        assertThat(viewer.path("open_seconds").asDouble()).isPositive();
        assertThat(viewer.path("frame_millis").path("samples")).hasSize(TINY.viewerFrames());
        for (String notRun : List.of("recording_overhead_pct", "replay_events_per_s", "check_slowdown",
                "recheck_from_history_speedup")) {
            assertThat(results.path(notRun).path("measured").asBoolean(true)).as(notRun).isFalse();
            assertThat(results.path(notRun).path("reason").asText()).as(notRun).contains("not run");
        }
    }

    @Test
    void run_ofTheRecordingSection_measuresAllThreeClustersAndTheirLogs() throws Exception {
        JsonNode recording = run(EnumSet.of(Section.RECORDING)).json().path("recording_overhead_pct");

        assertSummary(recording, TINY.rounds());
        assertThat(recording.path("ops_per_s_off").path("min").asDouble()).isPositive();
        assertThat(recording.path("ops_per_s_recording").path("min").asDouble()).isPositive();
        assertThat(recording.path("recorded_entries").asLong()).isPositive();
        assertSummary(recording.path("node_cpu_overhead_pct"), TINY.rounds());
        // Then all three at one fixed rate, a whole number of thousands a second that each of them completed.
        JsonNode paced = recording.path("fixed_rate_node_cpu_overhead_pct");
        assertSummary(paced, TINY.rounds());
        assertSummary(paced.path("slf4j_json_logging"), TINY.rounds());
        assertThat(paced.path("ops_per_s").asLong()).isPositive();
        assertThat(paced.path("ops_per_s").asLong() % 1000).isZero();
        for (String cluster : List.of("off", "recording", "slf4j-json")) {
            assertSummary(paced.path("node_cpu_us_per_op").path(cluster), TINY.rounds());
            assertThat(paced.path("achieved_ops_per_s").path(cluster).path("min").asDouble()).as(cluster).isPositive();
        }
        JsonNode logging = recording.path("slf4j_json_logging");
        assertSummary(logging, TINY.rounds());
        assertThat(logging.path("ops_per_s").path("min").asDouble()).isPositive();
        // The logging nodes bound SLF4J to Logback and wrote JSON: at least a start, receive and send per replica.
        assertThat(logging.path("logged_events").asLong()).isGreaterThan(9);
        assertThat(logging.path("bytes_per_event").asDouble()).isPositive();
    }

    private static void assertSummary(JsonNode node, int rounds) {
        assertThat(node.path("samples")).hasSize(rounds);
        double median = node.path("median").asDouble();
        assertThat(node.path("min").asDouble()).isLessThanOrEqualTo(median);
        assertThat(node.path("max").asDouble()).isGreaterThanOrEqualTo(median);
    }
}
