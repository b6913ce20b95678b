package dev.deja.cli;

import dev.deja.trace.TraceFormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * Makes every {@code deja} command behave alike: the exit codes of {@link ExitCodes}, one-line errors, the
 * {@link CommonOptions} and the exit-code table in every help, help laid out wide enough for its examples.
 * {@link #configure} walks the whole command tree, so a command added later (or discovered at run time) gets all
 * of it by being added before the call.
 */
public final class CommandLines {
    /** The help width: wide enough that no example line of any command is wrapped (CliHelpTest checks it). */
    public static final int HELP_WIDTH = 100;

    private CommandLines() {
    }

    /** Configures {@code root} and all its subcommands; returns it. */
    public static CommandLine configure(CommandLine root) {
        root.setExecutionExceptionHandler(CommandLines::executionError);
        root.setParameterExceptionHandler(CommandLines::parameterError);
        root.setUsageHelpWidth(HELP_WIDTH);
        root.setUsageHelpLongOptionsMaxWidth(28);
        configureTree(root);
        return root;
    }

    private static void configureTree(CommandLine line) {
        CommandSpec spec = line.getCommandSpec();
        if (!spec.mixins().containsKey(CommonOptions.MIXIN_NAME)
                && spec.findOption("--verbose") == null) {
            spec.addMixin(CommonOptions.MIXIN_NAME, CommandSpec.forAnnotatedObject(new CommonOptions()));
        }
        spec.exitCodeOnInvalidInput(ExitCodes.USAGE);
        spec.exitCodeOnExecutionException(ExitCodes.INTERNAL);
        spec.usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodes.helpSection());
        for (CommandLine sub : line.getSubcommands().values()) {
            configureTree(sub);
        }
    }

    /** Whether {@code exception} is the user's doing (bad input) rather than a defect of Deja. */
    static boolean isInputError(Throwable exception) {
        return exception instanceof UsageException || exception instanceof TraceFormatException
                || exception instanceof IllegalArgumentException || exception instanceof NoSuchFileException
                || exception instanceof UncheckedIOException || exception instanceof IOException;
    }

    private static int executionError(Exception exception, CommandLine line, ParseResult parseResult) {
        PrintWriter err = line.getErr();
        String prefix = prefix(line);
        if (isInputError(exception)) {
            err.println(prefix + message(exception));
            if (verbose(parseResult)) {
                exception.printStackTrace(err);
            }
            err.flush();
            return ExitCodes.USAGE;
        }
        String where = writeLog(exception, line);
        err.println(prefix + "internal error: " + exception.getClass().getSimpleName()
                + (exception.getMessage() == null ? "" : ": " + firstLine(exception.getMessage()))
                + "; this is a defect of Deja, please report it with " + where);
        if (verbose(parseResult)) {
            exception.printStackTrace(err);
        }
        err.flush();
        return ExitCodes.INTERNAL;
    }

    private static int parameterError(CommandLine.ParameterException exception, String[] args) {
        CommandLine line = exception.getCommandLine();
        PrintWriter err = line.getErr();
        List<String> unknown = line.getUnmatchedArguments();
        if (exception instanceof CommandLine.MissingParameterException && !unknown.isEmpty()) {
            // picocli checks required arguments before unknown ones; the unknown word is usually the cause
            // (a misspelt option), so it is what the user should read.
            err.println(prefix(line) + (unknown.getFirst().startsWith("-") ? "Unknown option: '" : "Unknown argument: '")
                    + unknown.getFirst() + "'");
        } else {
            err.println(prefix(line) + firstLine(exception.getMessage()));
        }
        if (exception instanceof CommandLine.UnmatchedArgumentException unmatched) {
            var suggestions = unmatched.getSuggestions();
            if (!suggestions.isEmpty()) {
                err.println(prefix(line) + "did you mean " + String.join(" or ", suggestions) + "?");
            }
        }
        String command = line.getCommandSpec().qualifiedName(" ");
        err.println("see './" + command + " --help'");
        err.flush();
        return ExitCodes.USAGE;
    }

    /** What an error line starts with: {@code deja check: }. */
    static String prefix(CommandLine line) {
        return line.getCommandSpec().qualifiedName(" ") + ": ";
    }

    /** The exception's message, or its class when it has none (a NoSuchFileException's message is the path). */
    private static String message(Throwable exception) {
        if (exception instanceof NoSuchFileException missing) {
            return "no such file or directory: " + missing.getFile();
        }
        String message = exception.getMessage();
        return message == null ? exception.getClass().getSimpleName() : firstLine(message);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static boolean verbose(ParseResult parseResult) {
        for (ParseResult result = parseResult; result != null; result = result.subcommand()) {
            if (result.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return System.getenv("DEJA_DEBUG") != null;
    }

    /** Writes the stack trace to a new log file and returns the words naming it. */
    private static String writeLog(Exception exception, CommandLine line) {
        try {
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
            Path log = Files.createTempFile("deja-error-" + stamp + "-", ".log");
            StringBuilder text = new StringBuilder();
            text.append("deja ").append(line.getCommandSpec().qualifiedName(" ")).append(" failed at ")
                    .append(LocalDateTime.now()).append('\n');
            text.append("java ").append(System.getProperty("java.version")).append(", ")
                    .append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.arch")).append('\n');
            var stack = new java.io.StringWriter();
            exception.printStackTrace(new PrintWriter(stack));
            text.append(stack);
            Files.writeString(log, text);
            return "the stack trace in " + log.toAbsolutePath();
        } catch (IOException | RuntimeException e) {
            return "the stack trace (which could not be written to a log file: " + e.getMessage()
                    + "; run again with --verbose to see it)";
        }
    }
}
