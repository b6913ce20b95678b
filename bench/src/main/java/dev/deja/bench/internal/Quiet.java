package dev.deja.bench.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waiting, outside any measured time, until the machine is quiet: after a check, a JVM goes on compiling in the
 * background for seconds, which takes one of two cores from whatever is measured next (a cold full check took 6-7 s
 * right after a warm engine's commands, 4-5 s on an idle machine; an edited re-check right after a full check in the
 * same JVM, up to three times its time on a quiet one).
 */
final class Quiet {
    private Quiet() {
    }

    /**
     * Waits at most 30 s until neither this JVM nor a warm engine whose command line holds {@code marker} (when not
     * null) has used more than 50 ms of CPU in a second.
     */
    static void await(String marker) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long before = cpuTicks(marker);
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000);
            long now = cpuTicks(marker);
            // Clock ticks are hundredths of a second on Linux: 5 is 50 ms.
            if (now - before < 5) {
                return;
            }
            before = now;
        }
    }

    /**
     * The CPU time used so far by this JVM and the warm engines whose command line holds {@code marker}, in clock
     * ticks, from {@code /proc} (Linux; elsewhere 0, and nothing is waited for). {@code ProcessHandle.Info} shows
     * neither the command line nor the CPU time of an engine, which runs in a session of its own.
     */
    private static long cpuTicks(String marker) {
        long ticks = ticks(Path.of("/proc/self"));
        if (marker == null) {
            return ticks;
        }
        try (var processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                List<String> arguments;
                try {
                    arguments = List.of(Files.readString(process.resolve("cmdline")).split("\0"));
                } catch (IOException e) {
                    continue;
                }
                if (arguments.contains(marker) && arguments.contains("dev.deja.daemon.DaemonServer")) {
                    ticks += ticks(process);
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return ticks;
    }

    /** User and system CPU of the process at {@code process} (a {@code /proc} entry) in clock ticks; 0 if unknown. */
    private static long ticks(Path process) {
        try {
            String stat = Files.readString(process.resolve("stat"));
            // After the command's name in parentheses: state is field 3, utime 14, stime 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
