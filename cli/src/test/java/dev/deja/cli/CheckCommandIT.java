package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.paxos.PaxosExample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja check} on simulated seven-process Paxos runs (30% loss, delays of 1..100 ms; seed 22 shows the latest-response bug):
 * golden output, exit codes, the JSON report and clear errors for bad scripts.
 */
class CheckCommandIT {
    private static final String SCRIPT = Path.of("..").resolve(new PaxosExample().script().orElseThrow()).toString();
    /** A seed on which the latest-response bug changes the decision (see CheckerPaxosIT). */
    private static final long SEED = 22;

    @TempDir
    static Path temporary;

    private static Path buggy;
    private static Path clean;

    @BeforeAll
    static void record() {
        buggy = paperSetting(Optional.of("latest-response"));
        clean = paperSetting(Optional.empty());
    }

    private static Path paperSetting(Optional<String> bug) {
        return ExampleRuns.simulate(temporary, "paxos", 7, bug, SEED,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
    }

    @Test
    void check_ofTheBuggyRun_printsTheViolation_andExitsOne() throws Exception {
        Path json = temporary.resolve("report.json");
        CliRun.Output output = CliRun.run("check", buggy.toString(), SCRIPT, "--json", json.toString());
        assertThat(output.status()).as(output.err()).isEqualTo(1);
        assertThat(output.out()).isEqualTo(CliRun.golden("check-latest-response.txt", output.out()));
        assertThat(output.err()).contains("replayed the trace");
        CheckReport report = CheckReport.read(json);
        assertThat(report.violations()).hasSize(1);
        assertThat(report.violations().getFirst().predicate()).isEqualTo("global_consistency");
        assertThat(report.violations().getFirst().aux()).containsEntry("changed", List.of(List.of(0L, "v-n5", "v-n1")));
    }

    @Test
    void replayAndCheck_ofOneTrace_countTheSameHandlerCalls() {
        String replayed = CliRun.run("replay", clean.toString()).out();
        String checked = CliRun.run("check", clean.toString(), SCRIPT).out();
        java.util.regex.Matcher replayCount = java.util.regex.Pattern.compile("replayed (\\d+) handler calls \\((\\d+) entries\\)")
                .matcher(replayed);
        java.util.regex.Matcher checkCount = java.util.regex.Pattern.compile("checked (\\d+) handler calls:").matcher(checked);
        assertThat(replayCount.find()).as(replayed).isTrue();
        assertThat(checkCount.find()).as(checked).isTrue();
        assertThat(checkCount.group(1)).isEqualTo(replayCount.group(1));
        assertThat(Long.parseLong(replayCount.group(2))).isGreaterThan(Long.parseLong(replayCount.group(1)));
    }

    @Test
    void check_ofTheCleanRun_exitsZero() throws Exception {
        CliRun.Output output = CliRun.run("check", clean.toString(), SCRIPT);
        assertThat(output.status()).as(output.err()).isZero();
        assertThat(output.out()).isEqualTo(CliRun.golden("check-clean.txt", output.out()));
    }

    @Test
    void check_withARaisingPredicate_reportsErrorWithTraceback_andExitsOne() throws Exception {
        Path script = temporary.resolve("raising.py");
        Files.writeString(script, """
                from deja import table, always
                Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["accepted_round"])

                @always
                def divides():
                    return sum(a.accepted_round for a in Agent) // 0 == 0
                """);
        CliRun.Output output = CliRun.run("check", clean.toString(), script.toString(), "--to", "50");
        assertThat(output.status()).as(output.err()).isEqualTo(1);
        assertThat(output.out()).contains("ERROR").contains("raising.py:6: in divides")
                .contains("ZeroDivisionError: integer division or modulo by zero");
    }

    @Test
    void check_withASyntaxError_exitsTwoBeforeReplaying() throws Exception {
        Path script = temporary.resolve("broken.py");
        Files.writeString(script, "from deja import always\n@always\ndef p(:\n    return True\n");
        CliRun.Output output = CliRun.run("check", clean.toString(), script.toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).startsWith("deja check: " + script + ":3:").contains("SyntaxError");
        assertThat(output.out()).isEmpty();
    }

    @Test
    void check_withAnUnknownTableClass_exitsTwoNamingTheTable() throws Exception {
        Path script = temporary.resolve("unknown.py");
        Files.writeString(script, """
                from deja import table, always
                T = table("T", cls="com.example.Missing", columns=["x"])
                @always
                def p():
                    return True
                """);
        CliRun.Output output = CliRun.run("check", clean.toString(), script.toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains("table T: class com.example.Missing cannot be loaded");
    }
}
