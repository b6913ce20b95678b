package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening on the command line: a damaged log is an input error (exit 2) named on one line by every command that
 * reads the trace, {@code dump} included, before any reasoning about messages; {@code deja sql} runs one statement.
 */
class HardeningCommandIT {
    @TempDir
    static Path directory;
    static Path simulated;

    @BeforeAll
    static void simulate() {
        simulated = directory.resolve("simulated");
        CliRun.Output output = CliRun.run("simulate", "paxos", "--nodes", "3", "--seed", "1", "--out", simulated.toString());
        assertThat(output.status()).as(output.err()).isZero();
    }

    private static Path copy(String name) throws Exception {
        Path target = directory.resolve(name);
        try (Stream<Path> files = Files.walk(simulated)) {
            for (Path file : files.toList()) {
                Files.copy(file, target.resolve(simulated.relativize(file).toString()));
            }
        }
        return target;
    }

    private static Path dataFile(Path trace, String node) throws Exception {
        try (Stream<Path> files = Files.list(trace.resolve("nodes").resolve(node).resolve("log-1"))) {
            return files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    @Test
    void emptyQueueFile_isNamedByDumpReplayAndCheck() throws Exception {
        Path trace = copy("empty");
        Path file = dataFile(trace, "n3");
        Files.write(file, new byte[0]);
        Path script = directory.resolve("true.py");
        Files.writeString(script, "from deja import always\n@always\ndef p():\n    return True\n");
        for (List<String> command : List.of(List.of("dump", trace.toString()), List.of("replay", trace.toString()),
                List.of("check", trace.toString(), script.toString()))) {
            CliRun.Output output = CliRun.run(command.toArray(String[]::new));
            assertThat(output.status()).as(command + ": " + output.err()).isEqualTo(ExitCodes.USAGE);
            assertThat(output.err().lines().filter(line -> line.contains(file.toString())).toList()).as(command.getFirst())
                    .singleElement().asString()
                    .isEqualTo("deja " + command.getFirst() + ": " + file + ": node n3, incarnation 1: the queue file is empty (0 bytes)");
            assertThat(output.err()).as(command.getFirst()).doesNotContain("Exception").doesNotContain("has no earlier send");
        }
    }

    @Test
    void missingLogDirectory_isNamedByDump() throws Exception {
        Path trace = copy("nolog");
        Path queue = dataFile(trace, "n2").getParent();
        try (Stream<Path> files = Files.list(queue)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(queue);
        CliRun.Output output = CliRun.run("dump", trace.toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).contains("deja dump: " + queue + ": node n2, incarnation 1: the queue directory is missing");
    }

    @Test
    void sql_refusesASecondStatement_andFileFunctions() throws Exception {
        Path trace = copy("sql");
        Path script = directory.resolve("sql.py");
        Files.writeString(script, "from deja import always\n@always\ndef p():\n    return True\n");
        assertThat(CliRun.run("check", trace.toString(), script.toString()).status()).isZero();
        CliRun.Output shutdown = CliRun.run("sql", trace.toString(), "SELECT 1; SHUTDOWN");
        assertThat(shutdown.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(shutdown.err()).isEqualTo("deja sql: the query holds 2 statements; give exactly one" + System.lineSeparator());
        CliRun.Output read = CliRun.run("sql", trace.toString(), "SELECT FILE_READ('/etc/hostname')");
        assertThat(read.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(read.err()).endsWith("deja sql: refused: queries may only read the check database's tables (Admin rights"
                + " are required for this operation)" + System.lineSeparator());
        assertThat(CliRun.run("sql", trace.toString(), "SELECT COUNT(*) FROM events").status()).isZero();
    }
}
