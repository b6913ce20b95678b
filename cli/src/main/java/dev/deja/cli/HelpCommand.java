package dev.deja.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code deja help [COMMAND]}: the help of the command, or of {@code deja}. Unlike picocli's built-in help command,
 * an unknown command or option is a usage error (exit code 2), as everywhere else.
 */
@Command(name = "help", mixinStandardHelpOptions = true,
        description = "Show the help of a command, or the list of commands.")
public final class HelpCommand implements Callable<Integer> {
    @Parameters(paramLabel = "COMMAND", arity = "0..1", description = "The command whose help to show.")
    String command;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine parent = spec.commandLine().getParent();
        CommandLine target = command == null ? parent : parent.getSubcommands().get(command);
        if (target == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "no command '" + command + "'; the commands are: "
                    + String.join(", ", parent.getSubcommands().keySet()));
        }
        target.usage(spec.commandLine().getOut(), parent.getColorScheme());
        return ExitCodes.OK;
    }
}
