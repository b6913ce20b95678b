package dev.deja.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.internal.DeclaredTables;
import dev.deja.check.internal.ScriptEvaluator;
import dev.deja.check.testing.ExampleRuns;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A check starts its replay before Python has loaded the script when the tables it declares can be told from its
 * text (or its stored outline), and replays again when the script declared others: either way the report is the
 * one a check gives that waits for the script.
 */
class ReplayAheadIT {
    private static final Path PAXOS = ExampleRuns.script("paxos");

    @TempDir
    Path temporary;

    @Test
    void guess_ofEveryBundledScript_isWhatLoadingItDeclares() throws Exception {
        List<Path> scripts;
        try (Stream<Path> listed = Files.list(Path.of("..", "scripts"))) {
            scripts = listed.filter(p -> p.toString().endsWith(".py")).sorted().toList();
        }
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(5);
        for (Path script : scripts) {
            String text = Files.readString(script);
            try (ScriptEvaluator evaluator = new ScriptEvaluator(text, script.toString(), Duration.ofSeconds(60),
                    OutputStream.nullOutputStream())) {
                assertThat(DeclaredTables.guess(text)).as(script.toString()).contains(evaluator.schemas());
            }
        }
    }

    @Test
    void check_startsAheadWhenTheGuessHolds_andReplaysAgainWhenItDoesNot_withTheSameReport() throws Exception {
        Path trace = ExampleRuns.simulate(temporary, "paxos", 7, java.util.Optional.of("latest-response"), 22,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
        String text = Files.readString(PAXOS);
        Path wrong = temporary.resolve("wrong-guess.py");
        // Declared only if the condition held: the text names a table that loading it does not declare.
        Files.writeString(wrong, text + "\nif len(__name__) < 0:\n"
                + "    Ghost = table(\"Ghost\", cls=\"dev.deja.examples.paxos.PaxosNode\", columns=[\"slot\"])\n");
        Path unknown = temporary.resolve("unknown-guess.py");
        Files.writeString(unknown, text.replace("columns=[\"slot\", \"accepted_round\", \"accepted_value\", "
                + "\"collect_round\", \"majority\"]", "columns=AGENT_COLUMNS").replace("# One row per Paxos process",
                "AGENT_COLUMNS = [\"slot\", \"accepted_round\", \"accepted_value\", \"collect_round\", \"majority\"]\n"
                        + "# One row per Paxos process"));
        assertThat(DeclaredTables.guess(Files.readString(wrong)).orElseThrow()).hasSize(2);
        assertThat(DeclaredTables.guess(Files.readString(unknown))).isEmpty();

        Checked ahead = check(trace, PAXOS);
        Checked afterWrongGuess = check(trace, wrong);
        Checked withoutGuess = check(trace, unknown);
        assertThat(ahead.startedAhead).containsExactly(true);
        assertThat(afterWrongGuess.startedAhead).containsExactly(false);
        assertThat(withoutGuess.startedAhead).containsExactly(false);
        assertThat(ahead.report.violations()).isNotEmpty();
        for (Checked other : List.of(afterWrongGuess, withoutGuess)) {
            assertThat(other.report.eventsChecked()).isEqualTo(ahead.report.eventsChecked());
            assertThat(other.report.violations()).isEqualTo(ahead.report.violations());
        }
    }

    private record Checked(CheckReport report, List<Boolean> startedAhead) {
    }

    private static Checked check(Path trace, Path script) {
        List<Boolean> startedAhead = new ArrayList<>();
        Checker.Listener listener = new Checker.Listener() {
            @Override
            public void replayStarted(boolean ahead) {
                startedAhead.add(ahead);
            }
        };
        CheckReport report = Checker.check(trace, script, Checker.Options.defaults()
                .withScriptOutput(OutputStream.nullOutputStream()).withListener(listener), new InMemoryStateHistory());
        return new Checked(report, startedAhead);
    }
}
