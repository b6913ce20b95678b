package dev.deja.bench.internal.logging;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The classpath of the node processes that log with Logback: this process's classpath without slf4j-simple (the
 * rest of Deja logs through it) plus the Logback and logstash-encoder jars, which only those processes load. The
 * build lists the jars in {@value #RESOURCE}.
 */
public final class LoggingClasspath {
    static final String RESOURCE = "logging-classpath.txt";

    private LoggingClasspath() {
    }

    /** The classpath for a node process running {@link Slf4jLoggedKvReplica}. */
    public static String forNodes() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            String name = Path.of(entry).getFileName() == null ? entry : Path.of(entry).getFileName().toString();
            if (!name.startsWith("slf4j-simple")) {
                entries.add(entry);
            }
        }
        entries.addAll(loggingJars());
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static List<String> loggingJars() {
        try (InputStream in = LoggingClasspath.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the build did not write " + RESOURCE + " next to "
                        + LoggingClasspath.class.getName() + "; rebuild the bench module");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return Arrays.stream(text.split(java.io.File.pathSeparator)).filter(s -> !s.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
