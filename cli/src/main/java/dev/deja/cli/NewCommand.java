package dev.deja.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Writes a minimal project of the user's own to start from. */
@Command(name = "new", mixinStandardHelpOptions = true,
        description = {"Write a minimal Deja project into DIR: a replicated counter (node, client, messages), a cluster "
                + "file, a predicate script and a JUnit 5 test (@DejaTest) that simulates the cluster over 10 seeds and "
                + "checks it. It builds and passes with 'mvn test' once Deja is installed in the local Maven repository "
                + "('mvn install -DskipTests' in Deja's checkout)."},
        footer = {"", "Example:", "  ./deja new counter && cd counter && mvn -q test"})
public final class NewCommand implements Callable<Integer> {
    /** Resource name under {@code dev/deja/cli/project/} to the path it is written to. */
    private static final Map<String, String> FILES = new LinkedHashMap<>();

    static {
        FILES.put("pom.xml", "pom.xml");
        FILES.put("cluster.json", "cluster.json");
        FILES.put("predicates.py", "predicates.py");
        FILES.put("CounterNode.java", "src/main/java/demo/CounterNode.java");
        FILES.put("CounterClient.java", "src/main/java/demo/CounterClient.java");
        FILES.put("Add.java", "src/main/java/demo/Add.java");
        FILES.put("Replicate.java", "src/main/java/demo/Replicate.java");
        FILES.put("CounterTest.java", "src/test/java/demo/CounterTest.java");
    }

    @Parameters(paramLabel = "DIR", description = "The directory to create (must not exist or be empty).")
    Path directory;

    @Override
    public Integer call() throws IOException {
        if (Files.exists(directory)) {
            try (Stream<Path> entries = Files.list(directory)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException(directory + " already holds files; 'deja new' writes into a new "
                            + "or empty directory");
                }
            }
        }
        for (var file : FILES.entrySet()) {
            Path target = directory.resolve(file.getValue());
            Files.createDirectories(target.getParent() == null ? directory : target.getParent());
            try (InputStream in = NewCommand.class.getResourceAsStream("project/" + file.getKey())) {
                if (in == null) {
                    throw new UncheckedIOException(new IOException("the template file " + file.getKey()
                            + " is missing from this build of deja"));
                }
                Files.copy(in, target);
            }
            System.out.println("deja: wrote " + target);
        }
        System.out.println("deja: next: cd " + directory + " && mvn -q test   (10 simulated runs, each checked with "
                + "predicates.py)");
        return 0;
    }
}
