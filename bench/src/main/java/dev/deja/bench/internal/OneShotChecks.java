package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.Summary;
import dev.deja.daemon.DaemonClient;
import dev.deja.daemon.DaemonLocation;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One-shot {@code deja check} commands as a user types them, each a process of its own through the launcher, side by
 * side: a full check ({@code --fresh}), a re-check with nothing edited, and a re-check with one predicate edited,
 * each in a new JVM ({@code --no-daemon}) and through the warm engine (a server of the benchmark's own, stopped at
 * the end); and once, before those, the warm engine's first full check of the script. Wall time of the whole command,
 * as the user waits for it.
 */
final class OneShotChecks {
    static final String FULL = "full check";
    static final String RECHECK = "re-check, nothing edited";
    static final String EDITED = "re-check, one predicate edited";

    private final Workspace workspace;
    private final Path launcher;
    private final Path daemonDirectory;
    private boolean aotCacheMade;

    OneShotChecks(Workspace workspace) {
        this.workspace = workspace;
        this.launcher = workspace.settings().home().resolve("deja");
        this.daemonDirectory = workspace.path("check/daemon");
    }

    /** Whether the launcher is there to run (not in a test of the benchmark's own). */
    boolean available() {
        return Files.isExecutable(launcher) && Files.isDirectory(workspace.settings().home().resolve("bench/target/classes"));
    }

    /** Both modes' samples of the three commands on {@code trace}, in {@code rounds} interleaved rounds. */
    ObjectNode measure(String name, Path trace, Path script, Path edited, int rounds) throws Exception {
        if (!aotCacheMade) {
            // Unmeasured: the first command in a new JVM after a build runs without the launcher's AOT cache and starts
            // its training (which run() waits for), so that no measured command is that first one.
            aotCacheMade = true;
            run(false, trace, script);
        }
        Map<String, Interleaved.Side> sides = new LinkedHashMap<>();
        for (boolean warm : new boolean[] {false, true}) {
            String mode = warm ? "warm " : "cold ";
            sides.put(mode + FULL, () -> run(warm, trace, script, "--fresh"));
            sides.put(mode + RECHECK, () -> run(warm, trace, script));
            sides.put(mode + EDITED, () -> run(warm, trace, edited));
        }
        // The warm engine's first full check of this script text, once: what a user waits for with a new script, or
        // after an edit that needs a replay. The engine is up first (a re-check with nothing edited starts it if none
        // runs, and needs no Python when the history holds this text's outline) and quiet.
        run(true, trace, script);
        awaitQuiet();
        double firstFull = run(true, trace, script, "--fresh");
        // A warm-up round for the warm engine only (its start, JIT and Python's first context): a command in a new JVM
        // starts cold whatever ran before, so warming those up would only double the section's longest commands.
        for (var side : sides.entrySet()) {
            if (side.getKey().startsWith("warm ")) {
                side.getValue().measure();
            }
        }
        workspace.progress().say("one-shot check %s: the warm engine's warm-up round done", name);
        Map<String, List<Double>> samples = Interleaved.run("one-shot check " + name + " (seconds)", rounds, false, sides,
                workspace.progress());
        ObjectNode node = Results.object();
        for (String mode : new String[] {"cold", "warm"}) {
            ObjectNode side = node.putObject(mode);
            for (String what : new String[] {FULL, RECHECK, EDITED}) {
                side.set(what.replace(' ', '_').replace(",", ""), Results.summary(Summary.of(samples.get(mode + " " + what))));
            }
            side.set("full_check_over_edited_recheck", Results.summary(Summary.ofRatios(samples.get(mode + " " + FULL),
                    samples.get(mode + " " + EDITED))));
        }
        ((ObjectNode) node.get("warm")).set("first_full_check_of_the_script", Results.summary(Summary.of(List.of(firstFull))));
        return node;
    }

    private double run(boolean warm, Path trace, Path script, String... more) throws IOException, InterruptedException {
        if (!warm) {
            awaitQuiet();
        }
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "check", trace.toString(), script.toString()));
        command.addAll(List.of(more));
        if (!warm) {
            command.add("--no-daemon");
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.path("check").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Path errors = workspace.path("check/one-shot.err");
        builder.redirectError(errors.toFile());
        builder.environment().put("DEJA_DAEMON_DIR", daemonDirectory.toString());
        builder.environment().remove("DEJA_NO_DAEMON");
        // The warm engine's commands run in it, started on the first and waited for (without this, the launcher would
        // run that first one in a new JVM and start the engine after it).
        builder.environment().put("DEJA_DAEMON_WAIT", "1");
        long start = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end in 10 minutes");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (process.exitValue() > 1) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + process.exitValue() + ": "
                    + Files.readString(errors).strip());
        }
        awaitAotTraining();
        return seconds;
    }

    /**
     * Waits (at most 5 minutes, outside any measured time) while the launcher trains its AOT cache in the background,
     * which the first one-shot re-check after a build starts: it would otherwise compete with the commands measured.
     */
    private void awaitAotTraining() throws IOException, InterruptedException {
        Path aot = workspace.settings().home().resolve("target/aot");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() < deadline && Files.isDirectory(aot)) {
            try (var entries = Files.list(aot)) {
                if (entries.noneMatch(entry -> entry.getFileName().toString().startsWith("training-"))) {
                    return;
                }
            }
            Thread.sleep(500);
        }
    }

    /** Waits until neither this JVM nor a warm engine of the installation uses the CPU (see {@link Quiet}). */
    private void awaitQuiet() throws InterruptedException {
        Quiet.await("-Ddeja.home=" + workspace.settings().home());
    }

    /** Stops the benchmark's warm engine. */
    void stop() {
        DaemonClient.stop(new DaemonLocation(daemonDirectory));
    }

    /** A script with one predicate's code edited but not its results, and that predicate's name. */
    record Edit(String script, String predicate) {
    }

    /**
     * The script with its first predicate's code edited but not its results: an assignment to an unused local added
     * after its docstring, as a user's edit in progress would. What a user's edit of one predicate costs the next
     * re-check: every other predicate's results, and the derived values it reads, are reused.
     */
    static Edit editOnePredicate(String script) {
        List<String> lines = new ArrayList<>(List.of(script.split("\n", -1)));
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).matches("@\\s*(deja\\.)?(always|eventually)\\b.*")) {
                continue;
            }
            for (int j = i + 1; j < lines.size(); j++) {
                java.util.regex.Matcher def = java.util.regex.Pattern.compile("def\\s+(\\w+)\\s*\\(.*").matcher(lines.get(j));
                if (!def.matches()) {
                    continue;
                }
                int body = j + 1;
                while (body < lines.size() && lines.get(body).isBlank()) {
                    body++;
                }
                if (body == lines.size()) {
                    throw new IllegalArgumentException("predicate " + def.group(1) + " has no body");
                }
                String first = lines.get(body);
                String indent = first.substring(0, first.length() - first.stripLeading().length());
                int after = body;
                String quote = first.strip().startsWith("\"\"\"") ? "\"\"\"" : first.strip().startsWith("'''") ? "'''" : null;
                if (quote != null) {
                    // The docstring stays the body's first statement: it ends on this line or a later one.
                    int end = body;
                    String rest = first.strip().substring(3);
                    while (!rest.contains(quote) && end + 1 < lines.size()) {
                        rest = lines.get(++end);
                    }
                    after = end + 1;
                }
                lines.add(after, indent + "edited_for_the_benchmark = 0");
                return new Edit(String.join("\n", lines), def.group(1));
            }
        }
        throw new IllegalArgumentException("the script declares no predicate");
    }
}
