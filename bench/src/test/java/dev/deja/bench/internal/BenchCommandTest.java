package dev.deja.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.main.DejaCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {
    @Test
    void dejaCommand_withTheBenchmarksOnTheClasspath_offersBench() {
        CommandLine commandLine = DejaCli.commandLine();
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(out));

        int exit = commandLine.execute("bench", "--help");

        assertThat(commandLine.getSubcommands()).containsKey("bench");
        Object command = commandLine.getSubcommands().get("bench").getCommand();
        assertThat(command).isInstanceOf(BenchCommand.class);
        assertThat(exit).isZero();
        assertThat(out.toString()).startsWith("Usage: deja bench").contains("--quick", "--only", "--examples");
    }

    @Test
    void bench_unknownExample_isAUsageErrorNamingTheExamples() {
        CommandLine commandLine = DejaCli.commandLine();
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(out));

        int exit = commandLine.execute("bench", "--only", "check", "--examples", "paxos,nosuch");

        assertThat(exit).isEqualTo(2);
        assertThat(out.toString()).contains("--examples: unknown example 'nosuch'; the examples are [").contains("paxos");
    }
}
