package dev.deja.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Ctrl-C for a command run as a process in a test, as a terminal sends it: SIGINT to the process. */
public final class Sigint {
    private Sigint() {
    }

    /**
     * Sends SIGINT to {@code process} and waits up to {@code limitSeconds} for it to end. If it does not, sends SIGQUIT
     * to it and to {@code alsoDump} (other JVMs it waits on), so that their thread dumps land in their outputs, and
     * fails with {@code outputs}' contents: a hang then says where it hangs.
     */
    public static void interruptAndAwait(Process process, long limitSeconds, String what, List<String> alsoDump,
                                         Path... outputs) throws IOException, InterruptedException {
        if (new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start().waitFor() != 0) {
            throw new AssertionError("kill -INT " + process.pid() + " failed: " + what + " is gone");
        }
        if (process.waitFor(limitSeconds, TimeUnit.SECONDS)) {
            return;
        }
        new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).inheritIO().start().waitFor();
        for (String pid : alsoDump) {
            new ProcessBuilder("kill", "-QUIT", pid).inheritIO().start().waitFor();
        }
        Thread.sleep(2_000);
        StringBuilder printed = new StringBuilder();
        for (Path output : outputs) {
            printed.append(Files.readString(output));
        }
        throw new AssertionError(what + " did not end within " + limitSeconds + " s of SIGINT; its output and threads:\n"
                + printed);
    }
}
