package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.main.DejaCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CliHelpTest {
    private static String run(String... args) {
        return run(DejaCli.commandLine(), args);
    }

    private static String run(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(out));
        commandLine.execute(args);
        return out.toString();
    }

    @Test
    void help_listsEverySubcommand() {
        String help = run("--help");
        for (String command : DejaCli.commandLine().getSubcommands().keySet()) {
            assertThat(help).contains(command);
        }
        assertThat(help).contains("deploy", "dump", "node", "examples");
    }

    @Test
    void help_ofEverySubcommand_describesItsOptions() {
        for (var entry : DejaCli.commandLine().getSubcommands().entrySet()) {
            if (entry.getKey().equals("help")) {
                continue;
            }
            String help = run(entry.getKey(), "--help");
            assertThat(help).as(entry.getKey()).startsWith("Usage: deja " + entry.getKey()).contains("--help")
                    // an unresolved help variable renders as "null"
                    .doesNotContainPattern("\\bnull\\b");
        }
    }

    @Test
    void commandLineOfTheArguments_printsWhatTheWholeOnePrints_forEverySubcommand() {
        // main builds only the subcommand named (DejaCli.commandLine(String...)): its help, its errors and its name in
        // them must be those of the whole command line.
        for (String command : DejaCli.commandLine().getSubcommands().keySet()) {
            for (String[] args : new String[][] {{command, "--help"}, {command, "--no-such-option"}}) {
                assertThat(run(DejaCli.commandLine(args), args)).as(String.join(" ", args))
                        .isEqualTo(run(DejaCli.commandLine(), args));
            }
        }
        assertThat(DejaCli.commandLine("check", "--help").getSubcommands()).containsOnlyKeys("check");
        assertThat(DejaCli.commandLine("help", "check").getSubcommands()).containsKeys("help", "check", "sql");
        assertThat(DejaCli.commandLine("--version").getSubcommands()).containsKey("check");
    }

    @Test
    void checkHelp_showsOnlyTheFaultOptionsCheckAccepts() {
        String help = run("check", "--help");
        assertThat(help).contains("--drop=P", "--dup=P", "--delay=MIN..MAX", "--partition=SPEC", "--crash-rate=R",
                "--restart-delay=TIME", "--clock-skew=TIME");
        assertThat(help).doesNotContain("--kill", "--restart=", "--fault-seed");
    }

    @Test
    void check_withADeploymentsFaultOption_refusesInOneLine() {
        for (String[] option : new String[][] {{"--kill", "n1@1s"}, {"--restart", "n1@2s"}, {"--fault-seed", "7"}}) {
            CliRun.Output output = CliRun.run("check", "trace", "script.py", "--classify-liveness", option[0], option[1]);
            assertThat(output.status()).as(option[0]).isEqualTo(ExitCodes.USAGE);
            assertThat(output.err()).as(option[0]).isEqualTo("deja check: --kill, --restart and --fault-seed are for "
                    + "'deja deploy'; the walks of --classify-liveness are simulated (--drop, --dup, --delay, ...)\n"
                    + "see './deja check --help'\n");
        }
    }

    @Test
    void help_ofEverySubcommand_rendersWithoutPicocliWarnings() {
        // picocli warns on System.err (and prints the raw text) when a description is not a valid format string,
        // e.g. an unescaped "30% message loss"
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        PrintStream previous = System.err;
        try {
            System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
            run("--help");
            for (String command : DejaCli.commandLine().getSubcommands().keySet()) {
                run(command, "--help");
            }
        } finally {
            System.setErr(previous);
        }
        assertThat(warnings.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void help_ofEverySubcommand_showsEachExampleOnOneLine_soItCanBeCopied() {
        for (var entry : DejaCli.commandLine().getSubcommands().entrySet()) {
            String help = run(entry.getKey(), "--help");
            for (String line : entry.getValue().getCommandSpec().usageMessage().footer()) {
                if (line.strip().startsWith("./deja") || line.strip().startsWith("deja ")) {
                    assertThat(line).as(entry.getKey() + ": examples are run from the checkout, as ./deja")
                            .startsWith("  ./deja");
                    assertThat(line.length()).as(entry.getKey() + ": an example longer than the help is wrapped "
                            + "mid-command; break it with ' \\' at the end of a line: " + line)
                            .isLessThanOrEqualTo(CommandLines.HELP_WIDTH);
                    assertThat(help).as(entry.getKey()).contains(line + System.lineSeparator());
                }
            }
        }
    }

    @Test
    void deployAndSimulateHelp_nameTheExamples() {
        assertThat(run("deploy", "--help")).contains("paxos, chord");
        assertThat(run("simulate", "--help")).contains("paxos, chord");
    }

    @Test
    void deploy_withAnUnknownExample_namesTheKnownOnes() {
        assertThat(run("deploy", "raft", "--record", "unused-trace")).contains("unknown example 'raft'", "paxos");
    }

    @Test
    void deploy_withAnUnknownBug_namesTheExamplesBugs() {
        assertThat(run("deploy", "paxos", "--bug", "nope", "--out", "unused-trace"))
                .contains("has no bug 'nope'", "latest-response", "spec");
    }

    @Test
    void durations_acceptHumanAndIsoForms() {
        assertThat(Durations.parse("500ms").toMillis()).isEqualTo(500);
        assertThat(Durations.parse("20s").toMillis()).isEqualTo(20_000);
        assertThat(Durations.parse("1.5s").toMillis()).isEqualTo(1_500);
        assertThat(Durations.parse("2m").toMillis()).isEqualTo(120_000);
        assertThat(Durations.parse("PT3S").toMillis()).isEqualTo(3_000);
    }
}
