package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher runs a one-shot re-check from JDK 25's AOT cache (see {@code ./deja}): a cache the JVM refuses (stale,
 * damaged, empty or gone) must neither break the command nor print anything (a damaged and a missing one here). Runs the command line in new JVMs with
 * the launcher's AOT flags, read from the launcher itself.
 */
class AotCacheIT {
    private static final Path LAUNCHER = Path.of("..", "deja").toAbsolutePath().normalize();

    @TempDir
    Path temporary;

    /** The flags the launcher adds to use a cache, from its line {@code flags+=("-XX:AOTCache=$aot_cache" ...)}. */
    private static List<String> launcherFlags() throws IOException {
        String line = Files.readAllLines(LAUNCHER).stream().filter(l -> l.contains("\"-XX:AOTCache=$aot_cache\""))
                .findFirst().orElseThrow(() -> new AssertionError(LAUNCHER + " no longer adds -XX:AOTCache"));
        List<String> flags = new ArrayList<>();
        for (String word : line.substring(line.indexOf("\"-XX:AOTCache=$aot_cache\"") + 25).replace(")", " ").trim()
                .split("\\s+")) {
            flags.add(word);
        }
        assertThat(flags).as("the launcher silences the JVM's AOT messages").contains("-Xlog:aot=off");
        return flags;
    }

    private record Ran(int status, String out, String err) {
    }

    private Ran run(Path cache, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:AOTCache=" + cache));
        command.addAll(launcherFlags());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.deja.main.DejaCli"));
        command.addAll(List.of(args));
        Path out = temporary.resolve("out.txt");
        Path err = temporary.resolve("err.txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the command ended").isTrue();
        return new Ran(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void command_withARefusedAotCache_runsAsWithoutOne_andPrintsNothingAboutIt() throws Exception {
        Path damaged = temporary.resolve("damaged.aot");
        byte[] noise = new byte[64 * 1024];
        new java.util.Random(1).nextBytes(noise);
        Files.write(damaged, noise);
        Path missing = temporary.resolve("missing.aot");
        for (Path cache : List.of(damaged, missing)) {
            Ran ran = run(cache, "examples");
            assertThat(ran.status()).as("%s: %s", cache.getFileName(), ran.err()).isZero();
            assertThat(ran.out()).as(cache.getFileName().toString()).contains("paxos");
            assertThat(ran.err()).as(cache.getFileName().toString()).isEmpty();
        }
    }
}
