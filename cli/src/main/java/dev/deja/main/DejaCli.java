package dev.deja.main;

import dev.deja.cli.CheckCommand;
import dev.deja.cli.ContributedCommand;
import dev.deja.cli.DemoCommand;
import dev.deja.cli.DeployCommand;
import dev.deja.cli.DumpCommand;
import dev.deja.cli.ExamplesCommand;
import dev.deja.cli.ExportCommand;
import dev.deja.cli.NodeCommand;
import dev.deja.cli.ReplayCommand;
import dev.deja.cli.SimulateCommand;
import dev.deja.cli.SqlCommand;
import dev.deja.cli.ViewCommand;
import dev.deja.trace.TraceFormatException;
import java.io.UncheckedIOException;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code deja} command: the subcommands of the modules below, and those that modules above contribute at run
 * time ({@link ContributedCommand}, e.g. {@code deja bench}).
 */
@Command(name = "deja", mixinStandardHelpOptions = true, versionProvider = DejaCli.Version.class,
        description = "Record-and-replay debugger for distributed systems.",
        subcommands = {
                DemoCommand.class,
                DeployCommand.class,
                SimulateCommand.class,
                DumpCommand.class,
                ReplayCommand.class,
                CheckCommand.class,
                SqlCommand.class,
                ViewCommand.class,
                ExportCommand.class,
                NodeCommand.class,
                ExamplesCommand.class, CommandLine.HelpCommand.class})
public final class DejaCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, with errors shown as one clear message instead of a stack trace. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new DejaCli());
        for (ContributedCommand command : ServiceLoader.load(ContributedCommand.class, DejaCli.class.getClassLoader())) {
            commandLine.addSubcommand(command);
        }
        commandLine.setExecutionExceptionHandler((exception, line, parseResult) -> {
            boolean expected = exception instanceof TraceFormatException || exception instanceof IllegalArgumentException
                    || exception instanceof UncheckedIOException || exception instanceof java.io.IOException;
            line.getErr().println("deja " + line.getCommandName() + ": " + exception.getMessage());
            if (!expected || System.getenv("DEJA_DEBUG") != null) {
                exception.printStackTrace(line.getErr());
            }
            return expected ? 1 : 70;
        });
        return commandLine;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The version from the jar manifest, or the development version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = DejaCli.class.getPackage().getImplementationVersion();
            return new String[] {"deja " + (version == null ? "development build" : version)};
        }
    }
}
