package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deja simulate} as a user runs it: a reproducible trace, the reproducing command, clear refusals. */
class SimulateCommandIT {
    @TempDir
    Path temporary;

    @Test
    void simulate_writesAReplayableTraceAndPrintsTheCommandThatReproducesIt() throws Exception {
        Path trace = temporary.resolve("t");
        CliRun.Output run = CliRun.run("simulate", "paxos", "--nodes", "7", "--bug", "latest-response", "--seed", "22",
                "--drop", "0.3", "--delay", "1ms..100ms", "--out", trace.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("simulated paxos with bug latest-response on 7 nodes, seed 22:")
                .contains("the workload finished")
                .contains("deja: reproduce with: deja simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3"
                        + " --delay 1ms..100ms --out " + trace);
        assertThat(Files.readString(trace.resolve("trace.json"))).contains("\"kind\" : \"simulate\"").contains("\"seed\" : 22");

        CliRun.Output replay = CliRun.run("replay", trace.toString());
        assertThat(replay.out()).contains("of 7 nodes").contains("divergences: 0");
    }

    @Test
    void simulate_refusesAnExistingTraceUnlessForcedAndOnlyReplacesSimulatedOnes() throws Exception {
        Path trace = temporary.resolve("t");
        assertThat(CliRun.run("simulate", "paxos", "--nodes", "3", "--out", trace.toString()).status()).isZero();
        CliRun.Output again = CliRun.run("simulate", "paxos", "--nodes", "3", "--out", trace.toString());
        assertThat(again.status()).isEqualTo(1);
        assertThat(again.err()).contains("already holds files; choose a new directory or add --force");
        assertThat(CliRun.run("simulate", "paxos", "--nodes", "3", "--seed", "2", "--force", "--out", trace.toString())
                .status()).isZero();

        Path other = Files.createDirectories(temporary.resolve("notes"));
        Files.writeString(other.resolve("mine.txt"), "keep me");
        CliRun.Output refused = CliRun.run("simulate", "paxos", "--force", "--out", other.toString());
        assertThat(refused.err()).contains("is not a trace written by 'deja simulate'");
        assertThat(other.resolve("mine.txt")).hasContent("keep me");
    }

    @Test
    void simulate_badOptions_areNamedClearly() {
        Path out = temporary.resolve("x");
        assertThat(CliRun.run("simulate", "nope", "--out", out.toString()).err())
                .contains("unknown example 'nope'; the examples are: paxos");
        assertThat(CliRun.run("simulate", "paxos", "--delay", "5", "--out", out.toString()).err())
                .contains("--delay '5' must read MIN..MAX");
        assertThat(CliRun.run("simulate", "paxos", "--partition", "n1|n9@1s..2s", "--out", out.toString()).err())
                .contains("names node n9, which is not in the cluster");
        assertThat(CliRun.run("simulate", "paxos", "--partition", "n1|n2", "--out", out.toString()).err())
                .contains("has no @START..HEAL");
        assertThat(CliRun.run("simulate", "paxos", "--drop", "1.5", "--out", out.toString()).err())
                .contains("--drop is a probability between 0 and 1, was 1.5");
        assertThat(CliRun.run("simulate", "paxos", "--bug", "foo", "--out", out.toString()).err())
                .contains("example paxos has no bug 'foo'; its bugs: latest-response, spec");
        assertThat(out).doesNotExist();
    }
}
