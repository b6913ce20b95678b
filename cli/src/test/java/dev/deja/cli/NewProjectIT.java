package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's first hour: {@code deja new}, the project built outside the reactor against the published artifacts
 * only (a local Maven repository holding the modules it needs, as {@code mvn install} leaves them), its cluster
 * deployed with a kill and a restart, simulated, its deployment's trace copied elsewhere, replayed, checked and drawn.
 *
 * <p>The repository is this test's own: links to the user's local repository for every other artifact, and the
 * project's modules as this build made them. Not {@code mvn install}: that rewrites the modules' jars, in the
 * checkout and in the user's repository, which tests running beside this one have open (a class loaded while its
 * jar was being rewritten failed with {@code NoClassDefFoundError}). Under {@code ./deja test}, which installs every
 * module before any test runs ({@code -Ddeja.artifacts=installed}), the installed jars are used; otherwise those in
 * each module's {@code target}, which the reactor built before this module's tests.
 */
class NewProjectIT {
    @TempDir
    Path temporary;

    @Test
    void newProject_buildsPassesAndGoesThroughDeploySimulateReplayCheckView() throws Exception {
        Path checkout = Path.of(System.getProperty("maven.multiModuleProjectDirectory", "..")).toAbsolutePath().normalize();
        assumeTrue(Files.isRegularFile(checkout.resolve("junit/pom.xml")), "runs from Deja's checkout");
        Path repository = publishedArtifacts(checkout, temporary.resolve("repository"));

        Path project = temporary.resolve("counter");
        CliRun.Output created = CliRun.run("new", project.toString());
        assertThat(created.status()).as(created.err()).isZero();
        // Built and tested as written: 10 simulated runs checked by @DejaTest.
        String build = run(project, "mvn", "-B", "-o", "-Dmaven.repo.local=" + repository, "package");
        assertThat(build).contains("Tests run: 10, Failures: 0, Errors: 0").contains("BUILD SUCCESS");
        String classes = project.resolve("target/classes").toString();
        String cluster = project.resolve("cluster.json").toString();

        Path trace = temporary.resolve("recorded");
        CliRun.Output deployed = CliRun.run("deploy", "--cluster", cluster, "--classpath", classes, "--kill", "n2@1s",
                "--restart", "n2@2s", "--duration", "15s", "--out", trace.toString(),
                "--work", temporary.resolve("work").toString());
        assertThat(deployed.status()).as(deployed.err() + deployed.out()).isZero();
        assertThat(deployed.out()).contains("killed n2 (kill -9)").contains("restarted n2").contains("of 3 nodes");

        CliRun.Output simulated = CliRun.run("simulate", "--cluster", cluster, "--classpath", classes, "--seed", "3",
                "--dup", "0.2", "--out", temporary.resolve("simulated").toString());
        assertThat(simulated.status()).as(simulated.err() + simulated.out()).isZero();
        assertThat(simulated.out()).contains("simulated " + cluster + " on 3 nodes, seed 3");

        Path workstation = Files.createDirectories(temporary.resolve("workstation"));
        Path copy = workstation.resolve("recorded");
        copyTree(trace, copy);
        CliRun.Output replayed = CliRun.run("replay", copy.toString(), "--classpath", classes);
        assertThat(replayed.out()).as(replayed.err()).contains("of 3 nodes").contains("divergences: 0");
        CliRun.Output checked = CliRun.run("check", copy.toString(), project.resolve("predicates.py").toString(),
                "--classpath", classes);
        assertThat(checked.status()).as(checked.err() + checked.out()).isZero();
        assertThat(checked.out()).contains("handler calls: no violations");
        Path png = workstation.resolve("recorded.png");
        CliRun.Output viewed = CliRun.run("view", copy.toString(), "--png", png.toString(), "--classpath", classes);
        assertThat(viewed.status()).as(viewed.err() + viewed.out()).isZero();
        assertThat(Files.size(png)).isPositive();
    }

    /** The modules a new project depends on: the parent and {@code junit} with the modules it needs. */
    private static final java.util.List<String> MODULES = java.util.List.of("recorder", "replayer", "examples", "checker",
            "junit");

    /**
     * A local repository at {@code repository} holding the published artifacts (see the class comment): the user's
     * local repository linked file by file, with the project's own modules taken from where this build put them.
     */
    private static Path publishedArtifacts(Path checkout, Path repository) throws Exception {
        Path user = Path.of(System.getProperty("deja.localRepository",
                Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
        assertThat(user).as("the local Maven repository").isDirectory();
        Files.createDirectories(repository);
        run(repository, "cp", "-rs", user.toAbsolutePath() + "/.", repository.toString());
        if ("installed".equals(System.getProperty("deja.artifacts"))) {
            return repository; // the links to the installed modules
        }
        Path own = repository.resolve("dev/deja");
        if (Files.exists(own)) {
            try (Stream<Path> walk = Files.walk(own)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        java.util.regex.Matcher parent = java.util.regex.Pattern.compile(
                "<artifactId>deja-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(Files.readString(checkout.resolve("pom.xml")));
        assertThat(parent.find()).as("the version in " + checkout.resolve("pom.xml")).isTrue();
        String version = parent.group(1);
        publish(checkout.resolve("pom.xml"), null, repository, "deja-parent", version);
        for (String module : MODULES) {
            String artifact = "deja-" + module;
            Path jar = checkout.resolve(module).resolve("target").resolve(artifact + "-" + version + ".jar");
            assertThat(jar).as("the %s module's jar (build the project first)", module).isRegularFile();
            publish(checkout.resolve(module).resolve("pom.xml"), jar, repository, artifact, version);
        }
        return repository;
    }

    private static void publish(Path pom, Path jar, Path repository, String artifact, String version) throws Exception {
        Path directory = Files.createDirectories(repository.resolve("dev/deja").resolve(artifact).resolve(version));
        Files.copy(pom, directory.resolve(artifact + "-" + version + ".pom"));
        if (jar != null) {
            Files.copy(jar, directory.resolve(artifact + "-" + version + ".jar"));
        }
    }

    private static String run(Path directory, String... command) throws Exception {
        Path log = Files.createTempFile("deja-new-it", ".log");
        Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean done = process.waitFor(15, TimeUnit.MINUTES);
        String output = Files.readString(log);
        Files.delete(log);
        if (!done) {
            process.destroyForcibly();
        }
        assertThat(done && process.exitValue() == 0).as("%s in %s:%n%s", String.join(" ", command), directory,
                output).isTrue();
        return output;
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path path : walk.sorted(Comparator.naturalOrder()).toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target);
                }
            }
        }
    }

}
