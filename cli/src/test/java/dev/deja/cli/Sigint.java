package dev.deja.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Ctrl-C for a command run as a process in a test, as a terminal sends it: SIGINT to the process. */
public final class Sigint {
    private static final Path ENV = Path.of("/usr/bin/env");

    private Sigint() {
    }

    /**
     * {@code command} to be started with SIGINT's default disposition. A process inherits an ignored SIGINT: a build
     * started as a background job of a script (no job control: {@code mvn verify > log &}, nohup, some CI runners)
     * runs its test JVMs, and so the commands they start, with SIGINT ignored, and a JVM that starts so cannot catch
     * it ({@code sun.misc.Signal.handle} leaves an ignored SIGINT ignored). The command's Ctrl-C handling then never
     * runs and the test waits out its limit. GNU env's {@code --default-signal} restores the default before the JVM
     * starts; where env lacks it, the command is returned as it is and {@link #interruptAndAwait} says so if needed.
     */
    public static List<String> withDefaultSigint(List<String> command) {
        List<String> started = new ArrayList<>();
        if (Files.isExecutable(ENV) && envResetsSignals()) {
            started.addAll(List.of(ENV.toString(), "--default-signal=INT"));
        }
        started.addAll(command);
        return started;
    }

    private static boolean envResetsSignals() {
        try {
            Process probe = new ProcessBuilder(ENV.toString(), "--default-signal=INT", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether process {@code pid} ignores SIGINT, from its {@code SigIgn} mask in /proc; false where that is unknown. */
    static boolean ignoresSigint(long pid) throws IOException {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & (1L << (2 - 1))) != 0;
            }
        }
        return false;
    }

    /**
     * Sends SIGINT to {@code process} and waits up to {@code limitSeconds} for it to end. A process that ignores
     * SIGINT (started without {@link #withDefaultSigint}) fails at once, saying so. If it does not end, sends SIGQUIT
     * to it and to {@code alsoDump} (other JVMs it waits on), so that their thread dumps land in their outputs, and
     * fails with {@code outputs}' contents: a hang then says where it hangs.
     */
    public static void interruptAndAwait(Process process, long limitSeconds, String what, List<String> alsoDump,
                                         Path... outputs) throws IOException, InterruptedException {
        if (ignoresSigint(process.pid())) {
            throw new AssertionError(what + " (pid " + process.pid() + ") ignores SIGINT, inherited from the process that"
                    + " started it (a build run as a background job): start it with Sigint.withDefaultSigint");
        }
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
