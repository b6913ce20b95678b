package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Stack;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The {@code --json [FILE]} option, one meaning in every command: machine-readable output, to standard output, or to
 * FILE when one follows. Numbers are JSON numbers. Declare it as {@code @Mixin JsonOutput json;} and call
 * {@link #write(Object)} with a record, map or Jackson tree.
 *
 * <p>To keep {@code deja dump --json TRACE} working, the word after {@code --json} is taken as FILE only when it
 * ends in {@code .json} or is {@code -} (standard output); anything else is left for the next option or argument.
 */
public final class JsonOutput {
    /** The value meaning standard output. */
    static final String STANDARD_OUTPUT = "-";

    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .findAndAddModules().build();

    @Option(names = "--json", arity = "0..1", paramLabel = "FILE", parameterConsumer = FileIfJson.class,
            description = "Write machine-readable JSON to standard output, or to FILE (a name ending in .json, or - for "
                    + "standard output).")
    String target;

    /** Whether {@code --json} was given. */
    public boolean requested() {
        return target != null;
    }

    /** Whether the JSON goes to standard output (so human-readable output must go elsewhere or be left out). */
    public boolean toStandardOutput() {
        return STANDARD_OUTPUT.equals(target);
    }

    /** The file the JSON goes to, or null for standard output or when {@code --json} was not given. */
    public Path file() {
        return target == null || toStandardOutput() ? null : Path.of(target);
    }

    /** Writes {@code value} as indented JSON where {@code --json} said; does nothing without {@code --json}. */
    public void write(Object value) {
        if (target == null) {
            return;
        }
        try {
            if (toStandardOutput()) {
                PrintStream out = System.out;
                out.println(MAPPER.writeValueAsString(value));
                out.flush();
            } else {
                Path file = file();
                if (file.getParent() != null) {
                    Files.createDirectories(file.getParent());
                }
                try (OutputStream out = Files.newOutputStream(file)) {
                    MAPPER.writeValue(out, value);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JSON output to " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens the output for JSON Lines (one compact object per line, for streams of events), or returns null without
     * {@code --json}. Close it when done; standard output is flushed, not closed.
     */
    public Lines openLines() {
        if (target == null) {
            return null;
        }
        try {
            OutputStream out;
            if (toStandardOutput()) {
                out = new java.io.FilterOutputStream(System.out) {
                    @Override
                    public void close() throws IOException {
                        flush();
                    }
                };
            } else {
                Path file = file();
                if (file.getParent() != null) {
                    Files.createDirectories(file.getParent());
                }
                out = Files.newOutputStream(file);
            }
            return new Lines(new java.io.BufferedWriter(new java.io.OutputStreamWriter(out,
                    java.nio.charset.StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JSON output to " + target + ": " + e.getMessage(), e);
        }
    }

    /** JSON Lines output: {@link #write} one value per line. Not thread-safe. */
    public static final class Lines implements AutoCloseable {
        private static final ObjectMapper COMPACT = JsonMapper.builder().findAndAddModules().build();
        private final java.io.Writer out;

        private Lines(java.io.Writer out) {
            this.out = out;
        }

        /** Writes {@code value} as one line of compact JSON. */
        public void write(Object value) {
            try {
                out.write(COMPACT.writeValueAsString(value));
                out.write('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            try {
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The mapper every command's JSON goes through. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Takes the next word as FILE only if it names a JSON file or standard output. */
    static final class FileIfJson implements CommandLine.IParameterConsumer {
        @Override
        public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
            String value = STANDARD_OUTPUT;
            if (!args.isEmpty()) {
                String next = args.peek();
                if (next.equals(STANDARD_OUTPUT) || next.toLowerCase(java.util.Locale.ROOT).endsWith(".json")) {
                    value = args.pop();
                }
            }
            argSpec.setValue(value);
        }
    }
}
