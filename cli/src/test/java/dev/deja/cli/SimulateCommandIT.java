package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.runtime.Partition;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
                .contains("deja: reproduce with: ./deja simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3"
                        + " --delay 1ms..100ms --out " + trace);
        assertThat(Files.readString(trace.resolve("trace.json"))).contains("\"kind\" : \"simulate\"").contains("\"seed\" : 22");

        CliRun.Output replay = CliRun.run("replay", trace.toString());
        assertThat(replay.out()).contains("of 7 nodes").contains("divergences: 0");
        // --node is repeatable: the replay reads those nodes' logs only.
        CliRun.Output two = CliRun.run("replay", trace.toString(), "--node", "n2", "--node", "n5");
        assertThat(two.status()).as(two.err()).isZero();
        assertThat(two.out()).contains("of 2 nodes").contains("divergences: 0");
    }

    @Test
    void commandLine_ofEveryFault_reproducesTheSimulatorsTraceByteForByte() throws Exception {
        Example paxos = Examples.byName("paxos").orElseThrow();
        SimulationSettings settings = ExampleSimulation.settings(paxos, 5, Optional.of("spec")).seed(41)
                .dropProbability(0.2).duplicateProbability(0.05).delayMillis(2, 40).crashRate(0.01)
                .restartDelayMillis(250).clockSkewMillis(30).partition(Partition.parse("n1,n2|n3,n4,n5@100ms..400ms"))
                .maxSteps(3000).maxVirtualMillis(20_000).stop(SimulationSettings.Stop.AT_LIMIT).build();
        Path direct = temporary.resolve("direct");
        Simulator.run(settings, direct);
        Path viaCommand = temporary.resolve("command");
        String command = ExampleSimulation.commandLine(paxos, Optional.of("spec"), settings, viaCommand.toString());
        assertThat(command).startsWith("./deja simulate paxos --nodes 5 --seed 41 --bug spec --drop 0.2 --dup 0.05");

        List<String> words = shellWords(command);
        CliRun.Output run = CliRun.run(words.subList(1, words.size()).toArray(String[]::new));
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(queueBytes(viaCommand)).as(command).isEqualTo(queueBytes(direct));
    }

    /** Splits a command line as a POSIX shell would, for the single quotes the command uses. */
    private static List<String> shellWords(String command) {
        List<String> words = new ArrayList<>();
        Matcher matcher = Pattern.compile("'([^']*)'|(\\S+)").matcher(command);
        while (matcher.find()) {
            words.add(matcher.group(1) != null ? matcher.group(1) : matcher.group(2));
        }
        return words;
    }

    /** The SHA-256 of every queue file of a trace, by relative path (trace.json differs in the command it quotes). */
    private static Map<String, String> queueBytes(Path trace) throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(trace.resolve("nodes"))) {
            for (Path file : walk.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".cq4")).toList()) {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
                files.put(trace.relativize(file).toString(), HexFormat.of().formatHex(digest));
            }
        }
        assertThat(files).as("queue files in %s", trace).isNotEmpty();
        return files;
    }

    @Test
    void simulate_refusesAnExistingTraceUnlessForcedAndOnlyReplacesSimulatedOnes() throws Exception {
        Path trace = temporary.resolve("t");
        assertThat(CliRun.run("simulate", "paxos", "--nodes", "3", "--out", trace.toString()).status()).isZero();
        CliRun.Output again = CliRun.run("simulate", "paxos", "--nodes", "3", "--out", trace.toString());
        assertThat(again.status()).isEqualTo(ExitCodes.USAGE);
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
        assertThat(CliRun.run("simulate", "paxos", "--delay", "50ms..5ms", "--out", out.toString()).err())
                .contains("--delay '50ms..5ms': MAX is smaller than MIN");
        assertThat(CliRun.run("simulate", "paxos", "--delay", "5 parsecs", "--out", out.toString()).err())
                .contains("'5 parsecs' in --delay is not a duration such as 500ms, 2s or 1m");
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
