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
 * only (the local Maven repository, after {@code mvn install} of the modules it needs), its cluster deployed with
 * a kill and a restart, simulated, its deployment's trace copied elsewhere, replayed, checked and drawn.
 */
class NewProjectIT {
    @TempDir
    Path temporary;

    @Test
    void newProject_buildsPassesAndGoesThroughDeploySimulateReplayCheckView() throws Exception {
        Path checkout = Path.of(System.getProperty("maven.multiModuleProjectDirectory", "..")).toAbsolutePath().normalize();
        assumeTrue(Files.isRegularFile(checkout.resolve("junit/pom.xml")), "runs from Deja's checkout");
        // The published artifacts: the project's modules installed into the local repository.
        run(checkout, "mvn", "-B", "-q", "-o", "install", "-DskipTests", "-Dmaven.test.skip=true", "-pl", "junit", "-am");

        Path project = temporary.resolve("counter");
        CliRun.Output created = CliRun.run("new", project.toString());
        assertThat(created.status()).as(created.err()).isZero();
        // Built and tested as written: 10 simulated runs checked by @DejaTest.
        String build = run(project, "mvn", "-B", "-o", "package");
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
