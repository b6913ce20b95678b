package dev.deja.main;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The training run of the launcher's AOT cache (JDK 25, {@code -XX:AOTCacheOutput}): in a directory of its own, it
 * simulates a small Paxos run and checks it the ways a user's one-shot commands do (a full check, a re-check with a
 * predicate edited, a re-check with nothing edited), then explores a few paths with the script, so that the cache holds
 * the classes, linked, and the method profiles that those commands need: the command line's, the replayer's, the
 * explorer's, H2's and GraalPy's.
 *
 * <p>The launcher runs it in the background, with the flags of the JVMs that will use the cache, and then deletes
 * the directory; its output goes to a log. Exits 0 when every step ran as a user's command would (a check that finds
 * violations included), 3 otherwise (the launcher then keeps no cache).
 */
public final class AotTraining {
    private AotTraining() {
    }

    /**
     * {@code args[0]}: the directory to work in (created, and left for the caller to delete); {@code args[1]}: the
     * predicate script to check with (the installation's {@code scripts/paxos.py}).
     */
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: AotTraining DIRECTORY SCRIPT");
            System.exit(2);
        }
        int status;
        try {
            status = train(Path.of(args[0]), Files.readString(Path.of(args[1])));
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
            status = 3;
        }
        System.exit(status);
    }

    private static int train(Path directory, String text) throws IOException {
        // The training runs with a one-shot check's flags, but its checks must run to their end whatever the machine's
        // load: a check asking for the JIT (exit 250) would leave the build without a cache.
        System.clearProperty(dev.deja.cli.JitRestart.PROPERTY);
        Files.createDirectories(directory);
        Path trace = directory.resolve("trace");
        Path script = directory.resolve("training.py");
        Files.writeString(script, text);
        List<List<String>> commands = List.of(
                List.of("simulate", "paxos", "--nodes", "3", "--drop", "0.2", "--seed", "7", "--out", trace.toString()),
                List.of("dump", trace.toString()),
                List.of("check", "--no-daemon", "--fresh", trace.toString(), script.toString()),
                List.of("check", "--no-daemon", "--json", directory.resolve("report.json").toString(), trace.toString(),
                        script.toString()),
                List.of("check", "--no-daemon", trace.toString(), script.toString()),
                List.of("explore", "paxos", "--nodes", "3", "--drop", "0.3", "--script", script.toString(), "--paths", "3",
                        "--workers", "1", "--no-daemon", "--out", directory.resolve("explore").toString()));
        for (List<String> command : commands) {
            if (command.getFirst().equals("check") && command.contains("--json")) {
                // A predicate edited: the re-check loads the script in Python and evaluates that predicate alone.
                Files.writeString(script, text.replaceFirst("(?m)^(@always.*\\R)(def \\w+\\(\\):\\R)",
                        "$1$2    unused = 0\n"));
            }
            int status = DejaCli.commandLine().execute(command.toArray(String[]::new));
            System.err.println("aot training: deja " + String.join(" ", command) + ": exit " + status);
            if (status != 0 && status != 1) {
                return 3;
            }
        }
        return 0;
    }
}
