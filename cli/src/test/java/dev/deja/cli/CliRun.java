package dev.deja.cli;

import dev.deja.main.DejaCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/** Runs the {@code deja} command line in this JVM and captures what it prints. */
final class CliRun {
    /** What a command printed and returned. */
    record Output(int status, String out, String err) {
    }

    private CliRun() {
    }

    static Output run(String... args) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        PrintStream previous = System.out;
        StringWriter err = new StringWriter();
        int status;
        try {
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            // As the command line of a new JVM runs it (only the subcommand named, see DejaCli.commandLine(String...)).
            CommandLine commandLine = DejaCli.commandLine(args);
            commandLine.setErr(new PrintWriter(err, true));
            status = commandLine.execute(args);
        } finally {
            System.setOut(previous);
        }
        return new Output(status, stdout.toString(StandardCharsets.UTF_8), err.toString());
    }

    /** The golden file's content; with {@code -Ddeja.updateGolden=true} it is first rewritten from {@code actual}. */
    static String golden(String name, String actual) throws Exception {
        Path file = Path.of("src/test/resources/golden", name);
        if (Boolean.getBoolean("deja.updateGolden")) {
            Files.writeString(file, actual);
        }
        return Files.readString(file);
    }
}
