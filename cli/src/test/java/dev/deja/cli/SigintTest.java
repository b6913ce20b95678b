package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A process started by a parent that ignores SIGINT (a build run as a background job of a script) ignores it too, and
 * a JVM started so cannot catch it: the explore Ctrl-C tests then waited out their 300 s. Started through
 * {@link Sigint#withDefaultSigint}, the process has SIGINT's default disposition whatever its parent's.
 */
class SigintTest {
    /** A shell that ignores SIGINT, as a script's background job does, and then runs {@code command}. */
    private static Process fromAParentIgnoringSigint(List<String> command) throws Exception {
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c", "trap '' INT; exec \"$@\"", "sh"));
        wrapped.addAll(command);
        return new ProcessBuilder(wrapped).redirectErrorStream(true).start();
    }

    /** Waits until process {@code pid} runs sleep (the shell, and env, exec'd it). */
    private static void awaitExec(long pid) throws Exception {
        Path cmdline = Path.of("/proc", Long.toString(pid), "cmdline");
        for (int i = 0; i < 600 && !new String(Files.readAllBytes(cmdline)).startsWith("sleep"); i++) {
            Thread.sleep(50);
        }
        assertThat(new String(Files.readAllBytes(cmdline))).startsWith("sleep");
    }

    @Test
    void withDefaultSigint_fromAParentIgnoringSigint_startsTheCommandCatchingItAgain() throws Exception {
        assumeThat(Files.isReadable(Path.of("/proc/self/status"))).as("needs /proc").isTrue();
        Process plain = fromAParentIgnoringSigint(List.of("sleep", "30"));
        Process reset = fromAParentIgnoringSigint(Sigint.withDefaultSigint(List.of("sleep", "30")));
        try {
            awaitExec(plain.pid());
            awaitExec(reset.pid());
            assertThat(Sigint.ignoresSigint(plain.pid())).as("inherited: the condition the Ctrl-C tests hung in").isTrue();
            assertThat(Sigint.ignoresSigint(reset.pid())).as("started through withDefaultSigint").isFalse();
        } finally {
            plain.destroyForcibly();
            reset.destroyForcibly();
        }
    }
}
