package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja check --classify-liveness} end to end on the lock server's livelock ({@code release-retry-livelock},
 * seed 6), recorded by {@code deja simulate} for 2 s of virtual time (91 handler calls): the {@code queue_empty} span
 * opened by the server's receive of c2's {@code Acquire} is still open at the end. The check classifies it with two
 * walks to dmax 400; its table (golden), its JSON figures, the nearest live run it writes, the command that writes that
 * run again (the same node logs, byte for byte) and the {@code view --compare} it proposes are held to what
 * docs/liveness-from-trace.md says.
 */
class ClassifyLivenessCommandIT {
    private static final String SCRIPT = "../scripts/lockserver.py";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    private static Path recorded;
    private static Path live;
    private static CliRun.Output checked;

    @BeforeAll
    static void recordAndClassify() {
        recorded = work.resolve("lock");
        CliRun.Output simulated = CliRun.run("simulate", "lockserver", "--nodes", "3", "--bug", "release-retry-livelock",
                "--seed", "6", "--virtual-time", "2s", "--out", recorded.toString());
        assertThat(simulated.status()).as(simulated.out() + simulated.err()).isZero();
        live = work.resolve("live");
        checked = CliRun.run("check", recorded.toString(), SCRIPT, "--classify-liveness", "--walks", "2",
                "--max-depth", "400", "--out", live.toString(), "--json", work.resolve("report.json").toString());
    }

    @Test
    void classifyLiveness_openPendingSpan_isDeadWithItsFiguresAndNearestLiveRun() throws Exception {
        assertThat(checked.status()).as("an open span is a finding whatever its verdict: exit 1; " + checked.err())
                .isEqualTo(1);
        String table = checked.out().replace(work.toString(), "WORK");
        assertThat(table).isEqualTo(CliRun.golden("check-classify-liveness-lock.txt", table));

        JsonNode span = null;
        for (JsonNode violation : JSON.readTree(work.resolve("report.json").toFile()).get("violations")) {
            if (violation.has("liveness")) {
                span = violation;
            }
        }
        assertThat(span).as("a classified span in the JSON report").isNotNull();
        JsonNode liveness = span.get("liveness");
        assertThat(liveness.get("verdict").asText()).isEqualTo("dead");
        assertThat(liveness.get("walks").asInt()).isEqualTo(2);
        assertThat(liveness.get("live").asInt()).isZero();
        assertThat(liveness.get("maxDepth").asInt()).isEqualTo(400);
        assertThat(liveness.get("endStep").asLong()).isEqualTo(91);
        assertThat(liveness.get("walkSteps").asLong()).as("two walks from the end, each to dmax").isEqualTo(2 * (400 - 91));
        JsonNode critical = liveness.get("critical");
        assertThat(critical.get("verdict").asText()).isEqualTo("C1");
        assertThat(critical.get("step").asLong()).isEqualTo(liveness.get("openedAtStep").asLong());
        assertThat(critical.get("event").asText()).isEqualTo("receive Acquire from c2");
        JsonNode nearest = critical.get("nearestLive");
        assertThat(nearest.get("prefix").asLong()).isEqualTo(critical.get("step").asLong() - 1);
        assertThat(nearest.get("trace").asText()).isEqualTo(live.resolve("queue_empty-live.trace").toString());
        assertThat(nearest.get("reproduce").asText()).isEqualTo("./deja simulate --from " + recorded + " --at "
                + nearest.get("fromPosition").asLong() + " --seed 1 --steps 400 --schedule "
                + live.resolve("queue_empty-live.schedule") + " --out " + live.resolve("queue_empty-live.trace"));
    }

    @Test
    void nearestLiveRun_reproduceCommand_writesTheSameNodeLogs() throws Exception {
        Path again = work.resolve("again");
        List<String> words = new ArrayList<>(Arrays.asList(reproduceLine().split(" ")));
        words.subList(0, 2).clear(); // ./deja simulate
        words.set(words.size() - 1, again.toString());
        CliRun.Output simulated = CliRun.run(Stream.concat(Stream.of("simulate"), words.stream()).toArray(String[]::new));
        assertThat(simulated.status()).as(simulated.out() + simulated.err()).isZero();
        Path written = live.resolve("queue_empty-live.trace");
        for (Path log : logFiles(written)) {
            assertThat(Files.readAllBytes(again.resolve(written.relativize(log))))
                    .as("%s written again by %s", log, reproduceLine()).isEqualTo(Files.readAllBytes(log));
        }
        assertThat(logFiles(again)).hasSameSizeAs(logFiles(written));
    }

    @Test
    void viewCompare_recordingAndNearestLiveRun_alignsThemAndNamesTheFirstDifference() {
        CliRun.Output compared = CliRun.run("view", recorded.toString(), "--compare",
                live.resolve("queue_empty-live.trace").toString(), "--text");
        assertThat(compared.status()).as(compared.err()).isZero();
        // The recording's next step is the server taking c2's Acquire; the live run's is another delivery.
        assertThat(compared.out()).contains("common prefix: ").contains("first difference: ")
                .contains("- A: position ").contains("receive Acquire from c2")
                .contains("state of every node at A position ");
    }

    @Test
    void faultOption_withoutClassifyLiveness_exits2NamingIt() {
        CliRun.Output output = CliRun.run("check", recorded.toString(), SCRIPT, "--drop", "0.1");
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err().lines().findFirst().orElse(""))
                .isEqualTo("deja check: --drop goes with --classify-liveness (it sets the walks' output or network)");
    }

    private static String reproduceLine() {
        return checked.out().lines().filter(line -> line.startsWith("  reproduce: ")).findFirst()
                .orElseThrow(() -> new AssertionError("no reproduce line in\n" + checked.out()))
                .substring("  reproduce: ".length());
    }

    /** Every file under the trace's node directories (its logs and manifests), not trace.json. */
    private static List<Path> logFiles(Path trace) throws IOException {
        try (Stream<Path> files = Files.walk(trace.resolve("nodes"))) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
