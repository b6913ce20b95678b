package dev.deja.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The {@code --classpath JARS} option of the commands that run a user's own nodes: jars and class directories
 * separated by the platform's path separator, where {@code DIR/*} stands for every jar in DIR (as with
 * {@code java -cp}). The built-in examples stay visible through the parent loader.
 */
final class UserClasspath {
    static final String DESCRIPTION = "Jars and class directories holding your node and message classes, separated by ':' "
            + "(';' on Windows); DIR/* means every jar in DIR. The built-in examples need none.";

    private UserClasspath() {
    }

    /** A class loader over {@code spec} whose parent is this program's loader; the program's loader if null. */
    static ClassLoader loader(String spec) {
        ClassLoader parent = UserClasspath.class.getClassLoader();
        if (spec == null || spec.isBlank()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (String element : spec.split(File.pathSeparator)) {
            if (element.isBlank()) {
                continue;
            }
            if (element.endsWith("/*") || element.equals("*")) {
                Path directory = Path.of(element.substring(0, element.length() - 1));
                if (!Files.isDirectory(directory)) {
                    throw new IllegalArgumentException("--classpath: " + directory + " is not a directory");
                }
                try (Stream<Path> jars = Files.list(directory)) {
                    for (Path jar : jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList()) {
                        urls.add(url(jar));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("--classpath: cannot list " + directory + ": " + e.getMessage(), e);
                }
                continue;
            }
            Path path = Path.of(element);
            if (!Files.exists(path)) {
                throw new IllegalArgumentException("--classpath: " + path + " does not exist");
            }
            if (!Files.isDirectory(path) && !element.endsWith(".jar") && !element.endsWith(".zip")) {
                throw new IllegalArgumentException("--classpath: " + path + " is neither a jar nor a class directory");
            }
            urls.add(url(path));
        }
        return new URLClassLoader("user-classpath", urls.toArray(URL[]::new), parent);
    }

    private static URL url(Path path) {
        try {
            return path.toAbsolutePath().toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("--classpath: cannot use " + path + ": " + e.getMessage(), e);
        }
    }
}
