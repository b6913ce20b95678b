package dev.deja.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.check.Checker;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.check.testing.TraceBytes;
import dev.deja.cli.JitRestart;
import dev.deja.cli.Sigint;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The warm engine as the launcher uses it: a client process hands command lines to a server process it started,
 * and every command prints, writes and returns exactly what the same command run in a new JVM does (timings
 * aside), including after a script that loops or ends the Python context; users other than the server's are
 * refused. On a simulated seven-process Paxos run with the latest-response bug (seed 22).
 *
 * <p>Each command runs in a new JVM and through the engine at the same time, each in its own copy of the working
 * directory (trace, scripts, the trace's check database), so that the two never share a file and the new JVM's
 * start-up overlaps the engine's work. Paths are given relative to the working directory, so both print the same.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DaemonIT {
    /** The installation: the build root above this module. */
    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    static Path temporary;
    /** Where the commands in a new JVM run. */
    private static Path coldWork;
    /** Where the commands through the warm engine run: a copy of {@link #coldWork} as it was set up. */
    private static Path work;
    private static Path daemonDirectory;
    private static ExecutorService coldRunner;

    /** What a process printed and returned. */
    record Ran(int status, byte[] out, byte[] err) {
        String outText() {
            return new String(out, StandardCharsets.UTF_8);
        }

        /**
         * Standard error without what differs from run to run in a new JVM as well (durations, error-log names, and
         * the progress lines, which are printed by time) and without libraries' log lines, which some libraries
         * print once per process ("message will not be repeated"): in the warm engine, only its first command shows
         * them.
         */
        String errText() {
            return new String(err, StandardCharsets.UTF_8).replaceAll("(?m)^\\S+ +\\d+% \\[.*\\R", "")
                    .replaceAll("(?m)^\\S+: [\\d,]+ of [\\d,]+ .*elapsed.*\\R", "")
                    .replaceAll("(?m)^\\[[^\\]]+\\] (WARN|INFO|ERROR|DEBUG) .*\\R", "")
                    .replaceAll("\\d+\\.\\d+ s", "N s").replaceAll("deja-error-[0-9-]+\\.log", "deja-error-X.log");
        }
    }

    @BeforeAll
    static void simulate() throws IOException {
        coldWork = temporary.resolve("cold");
        Files.createDirectories(coldWork);
        Path trace = ExampleRuns.simulate(coldWork, "paxos", 7, Optional.of("latest-response"), 22,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
        Files.move(trace, coldWork.resolve("trace"));
        Files.copy(HOME.resolve("scripts/paxos.py"), coldWork.resolve("paxos.py"));
        work = temporary.resolve("work");
        copyTree(coldWork, work);
        daemonDirectory = temporary.resolve("daemon");
        coldRunner = Executors.newSingleThreadExecutor();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }

    /**
     * A copy of {@code classes} that another user can load: the checkout may sit in a folder only its owner can enter
     * (a {@code mktemp -d} clone), and the client run as nobody must still start, to find the server's folder closed.
     */
    private static Path readableByAll(Path classes) throws IOException {
        Path copy = Files.createTempDirectory("deja-client-classes");
        copyTree(classes, copy);
        try (Stream<Path> files = Files.walk(copy)) {
            for (Path file : files.toList()) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(
                        Files.isDirectory(file) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return copy;
    }

    /** Writes {@code text} to {@code name} in both working directories. */
    private static void writeBoth(String name, String text) throws IOException {
        Files.writeString(coldWork.resolve(name), text);
        Files.writeString(work.resolve(name), text);
    }

    @AfterAll
    static void stopServer() {
        coldRunner.shutdownNow();
        System.setProperty("deja.daemon.dir", daemonDirectory.toString());
        try {
            DaemonClient.stop(HOME);
        } finally {
            System.clearProperty("deja.daemon.dir");
        }
    }

    @Test
    @Order(1)
    void check_throughTheWarmEngine_printsWritesAndExitsAsInANewJvm() throws Exception {
        Ran[] ran = both("check", "trace", "paxos.py", "--fresh", "--json", "report.json");
        Ran cold = ran[0];
        Ran warm = ran[1];
        assertThat(cold.status()).as(cold.errText()).isEqualTo(1);
        assertSame(warm, cold);
        assertThat(Files.readAllBytes(work.resolve("report.json"))).isEqualTo(Files.readAllBytes(coldWork.resolve("report.json")));
        // A second time from the stored history (the first warm command started the server; this one reuses it).
        ran = both("check", "trace", "paxos.py", "--json", "report2.json");
        Ran coldAgain = ran[0];
        Ran warmAgain = ran[1];
        assertThat(coldAgain.errText()).contains("stored state history");
        assertSame(warmAgain, coldAgain);
        assertThat(Files.readAllBytes(work.resolve("report2.json"))).isEqualTo(Files.readAllBytes(coldWork.resolve("report2.json")));
        assertThat(status()).contains("2 command(s) served").contains("working directory: " + work);
    }

    @Test
    @Order(2)
    void errors_throughTheWarmEngine_printTheSameAndExitTheSame() throws Exception {
        writeBoth("broken.py", "from deja import always\n@always\ndef p(:\n    return True\n");
        // The first query after a check builds the query tables and says so, once: not a difference to compare, so
        // it runs here, in this JVM, for both working directories (a new JVM each cost more than the query).
        for (Path directory : List.of(coldWork, work)) {
            assertThat(dev.deja.main.DejaCli.commandLine().execute("sql", directory.resolve("trace").toString(), "SELECT 1"))
                    .isZero();
        }
        for (List<String> command : List.of(
                List.of("check", "trace", "broken.py"),
                List.of("check", "trace", "paxos.py", "--bogus"),
                List.of("sql", "trace", "SELECT predicate, position FROM violations", "--format", "csv"),
                List.of("sql", "trace", "DELETE FROM violations"))) {
            Ran[] ran = both(command.toArray(String[]::new));
            assertSame(ran[1], ran[0]);
        }
    }

    @Test
    @Order(3)
    void viewPng_throughTheWarmEngine_writesTheSamePicture() throws Exception {
        Ran[] ran = both("view", "trace", "--png", "picture.png", "--from", "3100", "--to", "3300", "--report", "report.json");
        Ran cold = ran[0];
        Ran warm = ran[1];
        assertThat(cold.status()).as(cold.errText()).isZero();
        assertThat(warm.status()).as(warm.errText()).isZero();
        assertThat(warm.outText()).isEqualTo(cold.outText());
        assertThat(Files.readAllBytes(work.resolve("picture.png"))).isEqualTo(Files.readAllBytes(coldWork.resolve("picture.png")));
    }

    @Test
    @Order(4)
    void explore_throughTheWarmEngine_printsWritesAndExitsAsInANewJvm() throws Exception {
        // Paths 0 to 10 of seed 1 on one worker: path 10 breaks global_consistency (ExploreExamplesIT's setting).
        Ran[] ran = both("explore", "paxos", "--nodes", "3", "--bug", "latest-response", "--drop", "0.3", "--delay",
                "1ms..100ms", "--script", "paxos.py", "--paths", "11", "--workers", "1", "--out", "explored");
        Ran cold = ran[0];
        Ran warm = ran[1];
        assertThat(cold.status()).as(cold.errText()).isEqualTo(1);
        assertThat(warm.status()).as(warm.errText()).isEqualTo(1);
        assertThat(withoutTimings(warm.outText())).isEqualTo(withoutTimings(cold.outText()))
                .contains("global_consistency", "violated (safety)", "explored/global_consistency.schedule");
        assertThat(warm.errText()).isEqualTo(cold.errText());
        assertThat(Files.readAllBytes(work.resolve("explored/global_consistency.schedule")))
                .isEqualTo(Files.readAllBytes(coldWork.resolve("explored/global_consistency.schedule")));
        assertThat(TraceBytes.nodeLogDigests(work.resolve("explored/global_consistency.trace")))
                .isEqualTo(TraceBytes.nodeLogDigests(coldWork.resolve("explored/global_consistency.trace"))).isNotEmpty();
        assertThat(reportWithoutTimings(work.resolve("explored/report.json")))
                .isEqualTo(reportWithoutTimings(coldWork.resolve("explored/report.json")));
    }

    @Test
    @Order(5)
    void explore_interruptedThroughTheWarmEngine_stopsCleanly_andTheEngineServesTheNextCommand() throws Exception {
        String pid = pid();
        List<String> command = new ArrayList<>(List.of(java(), "-Ddeja.home=" + HOME,
                "-Ddeja.daemon.dir=" + daemonDirectory, "-cp", classpath(), DaemonClient.class.getName(),
                "explore", "paxos", "--nodes", "3", "--bug", "latest-response", "--drop", "0.3", "--delay", "1ms..100ms",
                "--script", "paxos.py", "--paths", "1000000000", "--workers", "1", "--out", "interrupted"));
        Path out = Files.createTempFile(temporary, "out", ".txt");
        Path err = Files.createTempFile(temporary, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(Sigint.withDefaultSigint(command)).directory(work.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(Map.of(DaemonClient.FLAGS_VARIABLE, String.join("\n", flags()),
                DaemonClient.CLASSPATH_VARIABLE, classpath()));
        Process process = builder.start();
        try {
            // The first progress line says the search runs; then Ctrl-C, as a terminal sends it to the client.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            while (!Files.readString(err).contains("explore: ")) {
                assertThat(process.isAlive()).as("the client ended before it was interrupted: %s", Files.readString(err))
                        .isTrue();
                assertThat(System.nanoTime()).as("no progress within 240 s: %s", Files.readString(err)).isLessThan(deadline);
                Thread.sleep(100);
            }
            // The engine's thread dump, if it hangs, goes to its log.
            Sigint.interruptAndAwait(process, 300, "the client", List.of(pid), out, err);
        } finally {
            process.destroyForcibly();
        }
        String printed = Files.readString(out);
        String errors = Files.readString(err);
        JsonNode report = new ObjectMapper().readTree(work.resolve("interrupted/report.json").toFile());
        assertThat(report.get("ending").asText()).isEqualTo("interrupted");
        assertThat(process.exitValue()).as("exit status of the report; %s%s", printed, errors)
                .isEqualTo(report.get("findings").isEmpty() ? 0 : 1);
        assertThat(printed).contains("interrupted");
        assertThat(errors).contains("explore: stopping (Ctrl-C again to quit at once)");
        assertThat(pid()).as("the same engine").isEqualTo(pid);
        assertServesTheNextCheck(pid);
    }

    /** Standard output of explore without the figures measured by time (elapsed, rates). */
    private static String withoutTimings(String out) {
        return out.replaceAll("steps in [\\d.,]+ s \\([^)]*\\)", "steps in N s (rates)");
    }

    /** A report.json without the fields measured by time. */
    private static JsonNode reportWithoutTimings(Path file) throws IOException {
        ObjectNode report = (ObjectNode) new ObjectMapper().readTree(file.toFile());
        report.remove(List.of("elapsedMillis", "stepsPerSecond", "cpuMillis", "stepsPerCpuSecond", "pathsPerSecond"));
        return report;
    }
    @Test
    @Order(6)
    void aLoopingPredicate_isStoppedByTheWatchdog_andTheEngineServesTheNextCommand() throws Exception {
        writeBoth("looping.py", """
                from deja import table, always
                Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["accepted_round"])

                @always
                def loops():
                    while len(Agent) > 0:
                        pass
                    return True
                """);
        String pid = pid();
        Ran[] ran = both("check", "trace", "looping.py", "--to", "1", "--predicate-timeout", "2s");
        assertThat(ran[1].outText()).contains("TIMEOUT");
        assertSame(ran[1], ran[0]);
        assertServesTheNextCheck(pid);
    }

    @Test
    @Order(7)
    void aScriptEndingThePythonContext_getsAFreshContextNextTime() throws Exception {
        // os._exit is the harsher ending; sys.exit, which unwinds, is the soak build's second case.
        List<String> endings = Boolean.getBoolean("deja.soak") ? List.of("import os; os._exit(3)", "import sys; sys.exit(3)")
                : List.of("import os; os._exit(3)");
        for (String ending : endings) {
            writeBoth("ending.py", """
                    from deja import table, always
                    Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["accepted_round"])

                    @always
                    def ends():
                        if len(Agent) > 0:
                            %s
                        return True
                    """.formatted(ending));
            String pid = pid();
            Ran[] ran = both("check", "trace", "ending.py", "--to", "30");
            assertSame(ran[1], ran[0]);
            assertServesTheNextCheck(pid);
        }
    }

    @Test
    @Order(8)
    void anotherUser_cannotReachTheEngine() throws Exception {
        assumeThat(System.getProperty("user.name")).as("needs root to run a client as another user").isEqualTo("root");
        assumeThat(Files.isExecutable(Path.of("/usr/bin/setpriv"))).as("needs setpriv").isTrue();
        String pid = pid();
        String served = served();
        // As nobody, from /: the client finds the server's directory closed (mode 0700, root's), so it neither
        // connects nor starts a server there; it tells the launcher to run the command in a new JVM.
        Path clientClasses = readableByAll(HOME.resolve("cli/target/classes"));
        List<String> command = new ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                "--clear-groups", java(), "-Ddeja.home=" + HOME, "-Ddeja.daemon.dir=" + daemonDirectory,
                "-cp", clientClasses.toString(), DaemonClient.class.getName(),
                "sql", work.resolve("trace").toString(), "SELECT 1"));
        Ran nobody;
        try {
            nobody = run(command, Path.of("/"), Map.of(DaemonClient.CLASSPATH_VARIABLE, classpath()));
        } finally {
            try (Stream<Path> files = Files.walk(clientClasses)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        assertThat(nobody.status()).as(nobody.errText()).isEqualTo(DaemonClient.RUN_COLD);
        assertThat(nobody.out()).isEmpty();
        assertThat(nobody.errText()).as("says why it does not use the warm engine").contains("warm engine");
        assertThat(pid()).isEqualTo(pid);
        assertThat(served()).as("the server never ran nobody's command").isEqualTo(served);
    }

    @Test
    @Order(9)
    void aServerOfAnotherUser_refusesThisOne_byThePeersCredentials() throws Exception {
        // The peer check itself, with real peer credentials: a server that belongs to nobody, reached by root.
        DaemonLocation location = new DaemonLocation(temporary.resolve("nobody-daemon"));
        UserPrincipal nobody = temporary.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        DaemonServer server = new DaemonServer(location, "build", work.toString(), Map.of(), nobody, Duration.ofMinutes(5),
                () -> { });
        assertThat(server.bind()).isTrue();
        Thread serving = Thread.ofPlatform().daemon().start(server::serve);
        try {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(location.directory())))
                    .isEqualTo("rwx------");
            SocketChannel channel = DaemonClient.connect(location);
            assertThat(channel).isNotNull();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            DaemonClient.Outcome outcome = DaemonClient.exchange(channel, new Protocol.Request(Protocol.Kind.RUN,
                    "build", work.toString(), Map.of(), false, "UTF-8", "UTF-8", List.of("sql", "trace", "SELECT 1")), out, err);
            assertThat(outcome.kind()).isEqualTo(DaemonClient.Outcome.Kind.COLD);
            assertThat(out.size()).isZero();
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("belongs to user nobody and refuses user root");
        } finally {
            server.stop("test over");
            serving.join(Duration.ofSeconds(10));
        }
    }

    @Test
    @Order(10)
    void stop_endsTheServer() throws Exception {
        String pid = pid();
        System.setProperty("deja.daemon.dir", daemonDirectory.toString());
        try {
            assertThat(DaemonClient.stop(HOME)).hasValueSatisfying(text -> assertThat(text).contains("pid " + pid));
            assertThat(ProcessHandle.of(Long.parseLong(pid)).map(handle -> handle.onExit().orTimeout(20, TimeUnit.SECONDS)
                    .join().isAlive())).hasValue(false);
            assertThat(DaemonClient.status(HOME)).isEmpty();
            assertThat(Files.exists(daemonDirectory.resolve("socket"))).isFalse();
        } finally {
            System.clearProperty("deja.daemon.dir");
        }
    }

    /** The next ordinary check through the engine is served by the same process, with the right findings. */
    private static void assertServesTheNextCheck(String pid) throws Exception {
        Ran next = warm("check", "trace", "paxos.py");
        assertThat(next.status()).as(next.errText()).isEqualTo(1);
        assertThat(next.outText()).contains("global_consistency").contains("checked 2455 ").contains(": 1 violation");
        assertThat(pid()).isEqualTo(pid);
    }

    private static void assertSame(Ran warm, Ran cold) {
        assertThat(warm.status()).as("exit status; warm stderr: %s; cold stderr: %s", warm.errText(), cold.errText())
                .isEqualTo(cold.status());
        assertThat(warm.outText()).isEqualTo(cold.outText());
        assertThat(warm.out()).isEqualTo(cold.out());
        assertThat(warm.errText()).isEqualTo(cold.errText());
    }

    private static String status() {
        System.setProperty("deja.daemon.dir", daemonDirectory.toString());
        try {
            return DaemonClient.status(HOME).orElse("not running");
        } finally {
            System.clearProperty("deja.daemon.dir");
        }
    }

    private static String served() {
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\\((\\d+) command\\(s\\) served\\)").matcher(status());
        assertThat(matcher.find()).isTrue();
        return matcher.group(1);
    }

    private static String pid() {
        String status = status();
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("pid (\\d+)").matcher(status);
        assertThat(matcher.find()).as(status).isTrue();
        return matcher.group(1);
    }

    /**
     * The command in a new JVM (in {@link #coldWork}) and through the warm engine (in {@link #work}) at the same
     * time: {new JVM, warm engine}.
     */
    private static Ran[] both(String... args) throws Exception {
        Future<Ran> cold = coldRunner.submit(() -> cold(args));
        Ran warm;
        try {
            warm = warm(args);
        } catch (Exception | AssertionError e) {
            cold.cancel(true);
            throw e;
        }
        return new Ran[] {cold.get(), warm};
    }

    /** The command in a new JVM in {@link #coldWork}, as the launcher runs it without the warm engine. */
    private static Ran cold(String... args) throws Exception {
        return cold(coldWork, args);
    }

    /** The command in a new JVM in {@code directory}, with the flags the launcher gives that command. */
    private static Ran cold(Path directory, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(flags());
        command.addAll(launcherFlags(List.of(args)));
        command.addAll(List.of("-Ddeja.home=" + HOME, "-cp", classpath(), "dev.deja.main.DejaCli"));
        command.addAll(List.of(args));
        return run(command, directory, Map.of());
    }

    /** The command through the client, as the launcher runs it with the warm engine. */
    private static Ran warm(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(java(), "-Ddeja.home=" + HOME,
                "-Ddeja.daemon.dir=" + daemonDirectory, "-cp", classpath(), DaemonClient.class.getName()));
        command.addAll(List.of(args));
        Ran ran = run(command, work, Map.of(DaemonClient.FLAGS_VARIABLE, String.join("\n", flags()),
                DaemonClient.CLASSPATH_VARIABLE, classpath()));
        assertThat(ran.status()).as("the warm engine ran the command: %s", ran.errText()).isNotEqualTo(DaemonClient.RUN_COLD);
        return ran;
    }

    private static Ran run(List<String> command, Path directory, Map<String, String> environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().putAll(environment);
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Path out = Files.createTempFile(temporary, "out", ".txt");
        Path err = Files.createTempFile(temporary, "err", ".txt");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = builder.start();
        // Only a guard against a hang (a new JVM and the engine share the cores here): no timing expectation.
        if (!process.waitFor(600, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            int main = Math.max(command.indexOf("dev.deja.main.DejaCli"), command.indexOf(DaemonClient.class.getName()));
            throw new AssertionError(String.join(" ", command.subList(main + 1, command.size())) + " in " + directory
                    + " did not end within 600 s");
        }
        return new Ran(process.exitValue(), Files.readAllBytes(out), Files.readAllBytes(err));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String classpath() {
        return System.getProperty("java.class.path");
    }

    /**
     * The launcher's C1-only flag for a command run in a new JVM: a one-shot check, or an explore with a script, runs C1
     * alone there (see the launcher, {@code deja}), at about half the CPU of C2, which a new JVM beside the engine on two
     * cores feels. What the command prints is the same with C1 or C2. A one-shot check also gets the launcher's request
     * to run its predicates interpreted ({@link Checker#PYTHON_INTERPRETED_PROPERTY}), as the engine runs its checks, so
     * that the line saying how Python ran is the same on both sides. (The launcher's new JVM then has no JIT and runs
     * from an AOT cache; these keep the Graal JIT and take the engine that never compiles, as the warm engine does.)
     */
    static List<String> launcherFlags(List<String> args) {
        boolean oneShot = switch (args.getFirst()) {
            case "check" -> true; // --watch too
            case "explore" -> args.stream().anyMatch(arg -> arg.equals("--script") || arg.startsWith("--script="));
            default -> false;
        };
        List<String> flags = new ArrayList<>();
        if (oneShot) {
            flags.add("-XX:TieredStopAtLevel=1");
        }
        if (oneShot && args.getFirst().equals("check") && !args.contains("--classify-liveness")) {
            flags.add("-D" + Checker.PYTHON_INTERPRETED_PROPERTY + "=one-shot");
        }
        return flags;
    }

    /**
     * This JVM's flags (the build's, with the Graal compiler), without the test runner's own, and with a limit for the
     * check's restart with the JIT that no check here reaches. Whether a check restarts depends on its pace, which
     * depends on the machine's load: a new JVM and the engine, run side by side, would not always decide alike (on a
     * busy machine the engine's check measured 4 ms per event and restarted, the new JVM's did not). The restart
     * itself is tested by CheckHistoryCommandIT and DaemonServerIT.
     */
    private static List<String> flags() {
        List<String> flags = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(flag -> !flag.startsWith("-javaagent") && !flag.startsWith("-Dbasedir")
                        && !flag.startsWith("-Dsurefire") && !flag.startsWith("-Dfailsafe"))
                .toList());
        flags.add("-D" + JitRestart.REMAINING_PROPERTY + "=" + TimeUnit.DAYS.toMillis(1));
        return flags;
    }
}
