package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.runtime.Deployment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edit → re-check loop as a user lives it: a second check with the same tables is evaluated from the stored
 * history and prints the same report; a script that declares other tables replays again; {@code deja sql}
 * reads the history and refuses writes; {@code --to} and {@code --limit} cut the check; {@code --watch}
 * re-checks when the script is saved.
 */
class CheckHistoryCommandIT {
    private static final String SCRIPT = PaxosFixtures.SCRIPT;

    @TempDir
    static Path temporary;

    private static Path buggy;

    @BeforeAll
    static void record() {
        buggy = PaxosFixtures.readmeTrace(temporary);
    }

    @Test
    void recheck_withUnchangedTables_usesTheHistory_andPrintsTheSameReport() throws Exception {
        Path trace = copyOf(buggy, "recheck");
        CliRun.Output first = CliRun.run("check", trace.toString(), SCRIPT);
        CliRun.Output second = CliRun.run("check", trace.toString(), SCRIPT);
        assertThat(first.err()).contains("replayed the trace");
        assertThat(second.err()).contains("evaluated from the stored state history (tables unchanged, no replay)")
                .contains("; Python not needed (no predicate changed)");
        assertThat(second.out()).isEqualTo(first.out());
        assertThat(second.status()).isEqualTo(first.status()).isEqualTo(1);

        // A new predicate over the same tables is still evaluated from history ...
        Path edited = temporary.resolve("edited.py");
        Files.writeString(edited, Files.readString(Path.of(SCRIPT)) + """

                @always
                def rounds_are_positive():
                    return forall(Agent, lambda a: a.accepted_round >= 0)
                """);
        CliRun.Output withNewPredicate = CliRun.run("check", trace.toString(), edited.toString());
        assertThat(withNewPredicate.err()).contains("evaluated from the stored state history");
        assertThat(withNewPredicate.out()).contains("global_consistency");

        // ... and so is a table declaration with fewer columns (the stored rows are projected onto them) ...
        Path fewerColumns = temporary.resolve("fewer-columns.py");
        Files.writeString(fewerColumns, """
                from deja import table, always
                Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["collect_round"])
                @always
                def collect_round_not_negative():
                    return all(a.collect_round >= 0 for a in Agent)
                """);
        CliRun.Output projected = CliRun.run("check", trace.toString(), fewerColumns.toString());
        assertThat(projected.err()).contains("evaluated from the stored state history");
        assertThat(projected.status()).as(projected.err()).isZero();

        // ... while a column the history lacks needs a replay, and the check says why.
        Path otherTables = temporary.resolve("other-tables.py");
        Files.writeString(otherTables, """
                from deja import table, always
                Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["current_round"])
                @always
                def current_round_not_negative():
                    return all(a.current_round >= 0 for a in Agent)
                """);
        CliRun.Output replayed = CliRun.run("check", trace.toString(), otherTables.toString());
        assertThat(replayed.err()).contains("deja check: replaying the trace: table Agent declares column current_round,"
                + " which the stored history lacks").contains("replayed the trace");
        assertThat(replayed.status()).as(replayed.err()).isZero();
        assertThat(CliRun.run("check", trace.toString(), SCRIPT, "--fresh").err()).contains("replayed the trace");
    }

    @Test
    void check_interpretedAndAskedToRestartWithTheJit_exitsWithTheLaunchersStatus_andTheRunAgainGivesTheReport()
            throws Exception {
        // A predicate that sleeps 1 ms at each of the first 2,000 events: the progress between two positions 1,000
        // apart takes at least a second, so the pace is judged; with a limit of 0 ms left, it always asks for the JIT.
        Path slow = PaxosFixtures.slowAtFirstScript(temporary.resolve("slow.py"));
        Path reference = copyOf(buggy, "restart-reference");
        CliRun.Output expected = CliRun.run("check", reference.toString(), slow.toString(), "--json",
                temporary.resolve("restart-reference.json").toString());
        Path trace = copyOf(buggy, "restart");
        Path json = temporary.resolve("restart.json");
        CliRun.Output stopped;
        System.setProperty("deja.python.interpreted", "a test");
        System.setProperty(JitRestart.PROPERTY, "250");
        System.setProperty(JitRestart.REMAINING_PROPERTY, "0");
        try {
            stopped = CliRun.run("check", trace.toString(), slow.toString(), "--json", json.toString());
        } finally {
            System.clearProperty("deja.python.interpreted");
            System.clearProperty(JitRestart.PROPERTY);
            System.clearProperty(JitRestart.REMAINING_PROPERTY);
        }
        assertThat(stopped.status()).as(stopped.err()).isEqualTo(250);
        assertThat(stopped.err()).contains("ms per event interpreted").contains("so the check starts again with the Graal JIT");
        assertThat(stopped.out()).isEmpty();
        assertThat(json).doesNotExist();
        // The launcher's second run, with the JIT, over what the first left behind.
        CliRun.Output again = CliRun.run("check", trace.toString(), slow.toString(), "--json", json.toString());
        assertThat(again.status()).as(again.err()).isEqualTo(expected.status()).isEqualTo(1);
        assertThat(again.err()).contains("replayed the trace");
        // The same report as a check of a copy of the trace that was never stopped, the trace's name aside.
        assertThat(Files.readString(json)).isEqualTo(Files.readString(temporary.resolve("restart-reference.json"))
                .replace(reference.toString(), trace.toString()));
    }

    @Test
    void interpretsFirst_inAJvmThatStays_notWithClassifyLivenessOrDejaFullJit() {
        assumeThat(Checker.pythonJit()).as("this JVM has the Graal JIT").isTrue();
        assertThat(CheckCommand.interpretsFirst(true, false, Map.of())).isTrue();
        assertThat(CheckCommand.interpretsFirst(true, false, Map.of("DEJA_FULL_JIT", "0"))).isTrue();
        assertThat(CheckCommand.interpretsFirst(true, true, Map.of()))
                .as("random walks: many steps, the JIT from the start").isFalse();
        assertThat(CheckCommand.interpretsFirst(true, false, Map.of("DEJA_FULL_JIT", "1"))).isFalse();
        assertThat(CheckCommand.interpretsFirst(false, false, Map.of()))
                .as("a one-shot check in a JVM with the JIT: the launcher's run again after a restart").isFalse();
        System.setProperty(JitRestart.RESTARTED_PROPERTY, "true");
        try {
            assertThat(CheckCommand.interpretsFirst(true, false, Map.of()))
                    .as("a --watch the launcher started again with the JIT: the JIT from the start").isFalse();
        } finally {
            System.clearProperty(JitRestart.RESTARTED_PROPERTY);
        }
    }

    @Test
    void sql_readsTheHistory_andRefusesAnythingButQueries() throws Exception {
        Path trace = copyOf(buggy, "sql");
        assertThat(CliRun.run("sql", trace.toString(), "SELECT COUNT(*) FROM events").err())
                .contains("no check database at").contains("run 'deja check");
        assertThat(CliRun.run("check", trace.toString(), SCRIPT).status()).isEqualTo(1);

        CliRun.Output violations = CliRun.run("sql", trace.toString(),
                "SELECT position, predicate, node FROM violations", "--format", "csv");
        assertThat(violations.status()).as(violations.err()).isZero();
        assertThat(violations.out()).isEqualTo("position,predicate,node\n3224,global_consistency,n6\n");
        assertThat(violations.err()).as("the first query after the check").contains("building the query tables");

        CliRun.Output asOf = CliRun.run("sql", trace.toString(), "SELECT COUNT(*) AS agents FROM Agent_history"
                + " WHERE valid_from <= 3224 AND (valid_to IS NULL OR valid_to > 3224)", "--format", "json");
        assertThat(asOf.out().replaceAll("\\s+", "")).isEqualToIgnoringCase("[{\"agents\":7}]");
        assertThat(asOf.err()).as("built once").doesNotContain("building");

        CliRun.Output update = CliRun.run("sql", trace.toString(), "DELETE FROM violations");
        assertThat(update.status()).isEqualTo(2);
        assertThat(update.err()).contains("refused: queries may only read the check database's tables");
        assertThat(CliRun.run("sql", trace.toString(), "SELECT COUNT(*) FROM violations", "--format", "csv").out())
                .endsWith("\n1\n");
    }

    @Test
    void check_toAndLimit_cutTheCheckShort() {
        Path trace = copyOf(buggy, "cut");
        CliRun.Output before = CliRun.run("check", trace.toString(), SCRIPT, "--to", "3000");
        assertThat(before.status()).as(before.err()).isZero();
        assertThat(before.out()).contains("no violations");

        Path json = temporary.resolve("limited.json");
        CliRun.Output limited = CliRun.run("check", trace.toString(), SCRIPT, "--limit", "1", "--json", json.toString());
        assertThat(limited.status()).isEqualTo(1);
        assertThat(CheckReport.read(json).violations()).hasSize(1);
        assertThat(CheckReport.read(json).violations().getFirst().event().position()).isEqualTo(3224);
    }

    @Test
    void check_ofATracePathWithASemicolon_isRefusedBeforeOpeningH2() throws Exception {
        Path odd = copyOf(buggy, "odd;name");
        CliRun.Output output = CliRun.run("check", odd.toString(), SCRIPT);
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains(";");
        assertThat(odd.resolve("check")).doesNotExist();
    }

    @Test
    void watch_rechecksWhenTheScriptIsSaved() throws Exception {
        Path trace = copyOf(buggy, "watch");
        Path script = temporary.resolve("watched.py");
        Files.writeString(script, Files.readString(Path.of(SCRIPT)));
        // With this JVM's Graal JIT, if it has it: --watch then runs each check interpreted first (and, with a day
        // allowed for the events left, never starts again with the JIT, which a loaded machine's pace could ask for).
        List<String> flags = new ArrayList<>(List.of("-Xmx1g",
                "-D" + JitRestart.REMAINING_PROPERTY + "=" + java.util.concurrent.TimeUnit.DAYS.toMillis(1)));
        for (String flag : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.equals("-XX:+UnlockExperimentalVMOptions") || flag.equals("-XX:+EnableJVMCI")
                    || flag.startsWith("--upgrade-module-path")) {
                flags.add(flag);
            }
        }
        boolean jit = Checker.pythonJit();
        try (Watched watched = Watched.start(flags, trace, script)) {
            assertThat(watched.awaitLine("checked 2455 handler calls: 1 violation")).isTrue();
            assertThat(watched.awaitLine(jit ? "; Python predicates interpreted (--watch starts each check so"
                    : "; Python predicates interpreted (no Graal JIT in this JVM)")).isTrue();
            assertThat(watched.awaitLine("deja check: watching")).isTrue();
            Files.writeString(script, Files.readString(script).replace("def global_consistency", "def agreement"));
            assertThat(watched.awaitLine("agreement")).as("the re-check after saving names the renamed predicate").isTrue();
            assertThat(watched.awaitLine("evaluated from the stored state history")).isTrue();
        }
    }

    @Test
    void watch_startedInterpretedByTheLauncher_endsWithItsStatus_whenACheckAsksForTheJit() throws Exception {
        // As the launcher starts --watch: Python interpreted, with the status that asks it for the JIT; with no time
        // allowed for the events left, the first check asks at once, and --watch must end so that the launcher can run
        // it again with the JIT, rather than watch on with the check undone.
        Path trace = copyOf(buggy, "watch-restart");
        Path slow = PaxosFixtures.slowAtFirstScript(temporary.resolve("watched-slow.py"));
        List<String> flags = List.of("-Xmx1g", "-Ddeja.python.interpreted=one-shot",
                "-D" + JitRestart.PROPERTY + "=250", "-D" + JitRestart.REMAINING_PROPERTY + "=0");
        try (Watched watched = Watched.start(flags, trace, slow)) {
            assertThat(watched.process.waitFor(3, TimeUnit.MINUTES)).as("--watch ended").isTrue();
            watched.reader.join(Duration.ofSeconds(30));
            List<String> output = new ArrayList<>();
            watched.lines.drainTo(output);
            assertThat(watched.process.exitValue()).as(String.join("\n", output)).isEqualTo(250);
            assertThat(output).anyMatch(line -> line.contains("so the check starts again with the Graal JIT"));
            assertThat(output).as("no report, no watching after the request")
                    .noneMatch(line -> line.contains("deja check: watching") || line.contains("handler calls"));
        }
    }

    /** {@code deja check TRACE SCRIPT --watch} in a new JVM with these flags, its output read line by line. */
    private record Watched(Process process, BlockingQueue<String> lines, Thread reader) implements AutoCloseable {
        static Watched start(List<String> flags, Path trace, Path script) throws java.io.IOException {
            List<String> command = Deployment.childJavaCommand(flags, System.getProperty("java.class.path"),
                    "dev.deja.main.DejaCli", List.of("check", trace.toString(), script.toString(), "--watch"));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                    }
                } catch (java.io.IOException e) {
                    lines.add("read failed: " + e);
                }
            });
            return new Watched(process, lines, reader);
        }

        boolean awaitLine(String text) throws InterruptedException {
            return CheckHistoryCommandIT.awaitLine(lines, text);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            reader.join(Duration.ofSeconds(5));
        }
    }

    /** Waits up to three minutes (a loaded machine starts GraalPy slowly) for a line containing {@code text}, consuming lines before it. */
    private static boolean awaitLine(BlockingQueue<String> lines, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null && line.contains(text)) {
                return true;
            }
        }
        return false;
    }

    private static Path copyOf(Path trace, String name) {
        return PaxosFixtures.copyOf(trace, temporary.resolve(name));
    }
}
