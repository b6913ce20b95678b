package dev.deja.main;

import dev.deja.cli.CheckCommand;
import dev.deja.cli.ContributedCommand;
import dev.deja.cli.DaemonCommand;
import dev.deja.cli.DemoCommand;
import dev.deja.cli.DeployCommand;
import dev.deja.cli.DumpCommand;
import dev.deja.cli.ExamplesCommand;
import dev.deja.cli.ExploreCommand;
import dev.deja.cli.ExportCommand;
import dev.deja.cli.HelpCommand;
import dev.deja.cli.NewCommand;
import dev.deja.cli.NodeCommand;
import dev.deja.cli.ReplayCommand;
import dev.deja.cli.SimulateCommand;
import dev.deja.cli.SqlCommand;
import dev.deja.cli.ViewCommand;
import dev.deja.cli.CommandLines;
import dev.deja.cli.WhyCommand;
import java.util.List;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code deja} command: the subcommands of the modules below, and those that modules above contribute at run
 * time ({@link ContributedCommand}, e.g. {@code deja bench}).
 */
@Command(name = "deja", mixinStandardHelpOptions = true, versionProvider = DejaCli.Version.class,
        description = "Record-and-replay debugger for distributed systems.")
public final class DejaCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Deja's own subcommands, in the order the help lists them; modules above contribute more at run time. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(
            DemoCommand.class,
            DeployCommand.class,
            SimulateCommand.class,
            ExploreCommand.class,
            DumpCommand.class,
            ReplayCommand.class,
            CheckCommand.class,
            SqlCommand.class,
            ViewCommand.class,
            WhyCommand.class,
            ExportCommand.class,
            NodeCommand.class,
            DaemonCommand.class,
            ExamplesCommand.class,
            NewCommand.class,
            HelpCommand.class);

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }

    /** The configured command line, with errors shown as one clear message instead of a stack trace. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new DejaCli());
        for (Class<?> subcommand : SUBCOMMANDS) {
            commandLine.addSubcommand(subcommand);
        }
        for (ContributedCommand command : ServiceLoader.load(ContributedCommand.class, DejaCli.class.getClassLoader())) {
            commandLine.addSubcommand(command);
        }
        return CommandLines.configure(commandLine);
    }

    /**
     * The command line to run {@code args}: with only the subcommand they start with when it is one of Deja's own
     * ({@link #SUBCOMMANDS}, not help), since building every subcommand's options took 0.2 s of a new JVM's start, on
     * the way of every one-shot command; the whole one otherwise (no subcommand, an option, help, an unknown name, a
     * contributed command). What the subcommand prints, its help and its errors included, is the same either way
     * ({@code CliHelpTest}).
     */
    public static CommandLine commandLine(String... args) {
        if (args.length > 0) {
            for (Class<?> subcommand : SUBCOMMANDS) {
                if (subcommand != HelpCommand.class && subcommand.getAnnotation(Command.class).name().equals(args[0])) {
                    CommandLine commandLine = new CommandLine(new DejaCli());
                    commandLine.addSubcommand(subcommand);
                    return CommandLines.configure(commandLine);
                }
            }
        }
        return commandLine();
    }

    /** {@code deja} alone is a usage error: it names the commands and exits 2. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: "
                + String.join(", ", spec.subcommands().keySet().stream().filter(name -> !name.equals("help")).toList()));
    }

    /** The version and commit the build wrote into {@code version.properties}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws java.io.IOException {
            java.util.Properties properties = new java.util.Properties();
            try (var in = DejaCli.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            }
            String version = known(properties.getProperty("version"));
            String commit = known(properties.getProperty("commit"));
            String line = "deja " + (version == null ? "(version unknown)" : version);
            if (commit == null) {
                line += " (commit unknown: built outside a git clone)";
            } else {
                String date = known(properties.getProperty("commitDate"));
                line += " (commit " + commit + (date == null ? "" : " of " + date) + ")";
            }
            return new String[] {line, "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name")
                    + ", " + System.getProperty("java.home") + ")"};
        }

        /** The value, or null when the build left the placeholder or nothing. */
        private static String known(String value) {
            return value == null || value.isBlank() || value.startsWith("${") ? null : value.strip();
        }
    }
}
