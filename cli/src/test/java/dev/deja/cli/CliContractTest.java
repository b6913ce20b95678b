package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.main.DejaCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The contract every subcommand keeps (docs/cli.md): an unknown option is a usage error (2), {@code --help} exits
 * 0, and an input that does not exist (a trace, an example, a file) is a usage error (2) told in one line. The
 * subcommands are taken from the {@code CommandLine} at run time, so a command added later is covered without
 * touching this test; one whose inputs cannot be derived from its positional parameters needs a row in
 * {@link #BAD_INPUT}. Finding → 1 needs a real run, so it is in the commands' own ITs: CheckCommandIT
 * (a violation), CheckHistoryCommandIT, DemoCommandIT and ReplayCommandIT (changed code diverges).
 */
class CliContractTest {
    /** The placeholder for a path that does not exist. */
    private static final String MISSING = "{missing}";
    /** The placeholder for a file of this test's temporary directory (which may be created). */
    private static final String SCRATCH = "{scratch}";
    /** The placeholder for an existing, readable file. */
    private static final String EXISTING = "{existing}";
    /** The placeholder for a directory that holds files. */
    private static final String NON_EMPTY = "{non-empty}";

    /**
     * Arguments naming an input that does not exist (or, for a command that only writes, an output that already
     * holds files), for commands whose first positional parameter is not a trace or an example, or that need more.
     */
    private static final Map<String, List<String>> BAD_INPUT = Map.of(
            "check", List.of(MISSING, EXISTING),
            "sql", List.of(MISSING, "SELECT 1"),
            "view", List.of(MISSING, "--png", SCRATCH + ".png"),
            "export", List.of(MISSING, "--shiviz", SCRATCH + ".log"),
            "demo", List.of("--script", MISSING, "--out", SCRATCH),
            "node", List.of("--cluster", MISSING, "--node", "n1"),
            "bench", List.of("--show", MISSING),
            "new", List.of(NON_EMPTY),
            "why", List.of(MISSING, "--finding", "1"));

    /** Commands that read nothing the user names (daemon's ACTION is a keyword), so they have no bad input. */
    private static final List<String> NO_INPUT = List.of("examples", "help", "daemon");

    @TempDir
    Path scratch;

    static Stream<String> subcommands() {
        return DejaCli.commandLine().getSubcommands().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void anyCommand_withAnUnknownOption_exitsTwoNamingIt(String command) {
        CliRun.Output output = CliRun.run(command, "--no-such-option");

        assertThat(output.status()).as(command).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).as(command).contains("--no-such-option");
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void anyCommand_withHelp_exitsZeroWithUsage(String command) {
        CliRun.Output output = command.equals("help") ? CliRun.run("help", "check") : CliRun.run(command, "--help");

        assertThat(output.status()).as(command).isEqualTo(ExitCodes.OK);
        assertThat(output.out()).as(command).startsWith("Usage: deja ").contains("Exit codes:");
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void anyCommand_withAMissingInput_exitsTwoWithOneLine(String command) throws Exception {
        if (NO_INPUT.contains(command)) {
            return;
        }
        List<String> args = withBadInput(command);

        CliRun.Output output = CliRun.run(args.toArray(String[]::new));

        assertThat(output.status()).as(String.join(" ", args) + "\n" + output.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err().strip()).as(String.join(" ", args)).startsWith("deja " + command + ": ")
                .doesNotContain("\n").doesNotContain("Exception");
    }

    /** The commands whose {@code --node} filters what they read ({@code node}'s picks the one node it runs). */
    static Stream<String> nodeFilteringCommands() {
        return subcommands().filter(command -> !command.equals("node")
                && DejaCli.commandLine().getSubcommands().get(command).getCommandSpec().findOption("--node") != null);
    }

    @Test
    void nodeFilteringCommands_includeEveryCommandThatReadsSomeNodes() {
        assertThat(nodeFilteringCommands()).contains("dump", "replay", "view");
    }

    @ParameterizedTest
    @MethodSource("nodeFilteringCommands")
    void nodeOption_isRepeatable_andABadIdGetsTheOneMessage(String command) throws Exception {
        OptionSpec node = DejaCli.commandLine().getSubcommands().get(command).getCommandSpec().findOption("--node");
        assertThat(node.isMultiValue()).as("%s --node is repeatable", command).isTrue();
        List<String> args = withBadInput(command);
        args.addAll(List.of("--node", "n1", "--node", "not a/node"));

        CliRun.Output output = CliRun.run(args.toArray(String[]::new));

        assertThat(output.status()).as(String.join(" ", args) + "\n" + output.err()).isEqualTo(ExitCodes.USAGE);
        // The message, then the usage errors' pointer to the help.
        assertThat(output.err().lines().toList()).as(String.join(" ", args)).containsExactly(
                "deja " + command + ": Invalid value for option '--node' (ID): 'not a/node' is not a node id (1-64 "
                        + "letters, digits, '-', '_' or '.', not starting with '.', e.g. n1)",
                "see './deja " + command + " --help'");
    }

    @Test
    void noCommand_isAUsageError() {
        CliRun.Output output = CliRun.run();

        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).contains("a command is needed", "check", "see './deja --help'");
    }

    @Test
    void version_namesVersionAndCommit() {
        CliRun.Output output = CliRun.run("--version");

        assertThat(output.status()).isEqualTo(ExitCodes.OK);
        // The build filters version.properties; a build outside a git clone says so instead of a commit.
        assertThat(output.out()).matches("(?s)deja \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\((commit [0-9a-f]{7,}"
                + "( of \\d{4}-\\d{2}-\\d{2})?|commit unknown: built outside a git clone)\\)\\R.*");
    }

    /** {@code command} and the arguments naming a missing input, placeholders replaced by this test's files. */
    private List<String> withBadInput(String command) throws Exception {
        List<String> args = new ArrayList<>();
        args.add(command);
        Files.writeString(scratch.resolve("existing.py"), "# nothing\n");
        for (String arg : badInput(command)) {
            args.add(arg.replace(MISSING, scratch.resolve("no-such-trace").toString())
                    .replace(SCRATCH, scratch.resolve("out").toString())
                    .replace(EXISTING, scratch.resolve("existing.py").toString())
                    .replace(NON_EMPTY, scratch.toString()));
        }
        return args;
    }

    /** The arguments that name a missing input for {@code command}: its row, or derived from its positionals. */
    private static List<String> badInput(String command) {
        if (BAD_INPUT.containsKey(command)) {
            return BAD_INPUT.get(command);
        }
        CommandSpec spec = DejaCli.commandLine().getSubcommands().get(command).getCommandSpec();
        List<PositionalParamSpec> positionals = spec.positionalParameters();
        assertThat(positionals).as("'" + command + "' has no positional TRACE or EXAMPLE: add a row to"
                + " CliContractTest.BAD_INPUT naming an input that does not exist").isNotEmpty();
        String label = positionals.getFirst().paramLabel();
        List<String> args = new ArrayList<>();
        switch (label) {
            case "TRACE" -> args.add(MISSING);
            case "EXAMPLE" -> args.addAll(List.of("no-such-example", "--out", SCRATCH));
            default -> throw new AssertionError("'" + command + "' starts with " + label + ": add a row to"
                    + " CliContractTest.BAD_INPUT naming an input that does not exist");
        }
        for (PositionalParamSpec extra : positionals.subList(1, positionals.size())) {
            if (extra.required()) {
                throw new AssertionError("'" + command + "' needs " + extra.paramLabel() + " too: add a row to"
                        + " CliContractTest.BAD_INPUT");
            }
        }
        return args;
    }
}
