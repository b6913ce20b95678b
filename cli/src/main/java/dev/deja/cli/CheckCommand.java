package dev.deja.cli;

import dev.deja.check.PythonText;
import dev.deja.explore.RecordedLiveness;
import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.ScriptException;
import dev.deja.check.StateHistory;
import dev.deja.check.Threshold;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.H2StateHistory;
import dev.deja.check.Violation;
import dev.deja.trace.CodeFingerprint;
import dev.deja.trace.TraceFormatException;
import dev.deja.text.TextTable;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Replays a trace and evaluates a Python predicate script at every event. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check a trace against a predicate script: replay it, refresh the script's declared tables "
                + "after every event, and evaluate its @always and @eventually predicates.",
                "Prints the violations (position, Lamport clock, node, predicate, aux values) and a summary per "
                        + "predicate. When the script's tables are unchanged since the last check of the trace, "
                        + "the stored state history is used instead of a replay.",
                "A predicate may return the items that violate it (a set, a list; forall and exists give their "
                        + "failing rows): each item is its own finding, in the WITNESS column.",
                "Exit code 1 means violations: an always-predicate turned false, an eventually-predicate still false "
                        + "at the end, a predicate that raised or timed out, not counting those a --threshold screened out."},
        footer = {"", "Examples:", "  ./deja check traces/paxos scripts/paxos.py",
                "  ./deja check traces/paxos scripts/paxos.py --json report.json --limit 1",
                "  ./deja check traces/lockserver scripts/lockserver.py --threshold enough_time=800",
                "  ./deja check traces/paxos scripts/paxos.py --watch"})
public final class CheckCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Parameters(index = "1", paramLabel = "SCRIPT", description = "The Python predicate script.")
    Path script;

    /** The full report (every finding with its event and aux values); the table goes to stderr with it on stdout. */
    @CommandLine.Mixin
    JsonOutput json;

    /** Findings before --from are not reported (the state is still built from the start); the check ends at --to. */
    @CommandLine.Mixin
    PositionRange range;

    @Option(names = "--limit", paramLabel = "N", description = "Stop after N findings.")
    Long limit;

    @Option(names = "--threshold", paramLabel = "NAME=VALUE", description = "Screen out findings whose aux value "
            + "NAME (for a span, its value at the span's end) is a number below VALUE: they are still listed, marked "
            + "'below', but not counted in the summary, the JSON report's count or the exit code. Repeatable.")
    List<String> thresholds = new ArrayList<>();

    @Option(names = "--watch", description = "Check again every time the script is saved (Ctrl-C ends).")
    boolean watch;

    @Option(names = "--predicate-timeout", paramLabel = "DURATION", converter = Durations.class, defaultValue = "10s",
            description = "Stop a predicate whose evaluation at one event takes longer and report it as TIMEOUT "
                    + "(default: ${DEFAULT-VALUE}). Loading the script (its module-level code) gets as long, and at "
                    + "least 5s.")
    Duration predicateTimeout;

    @Option(names = "--fresh", description = "Replay the trace even if a stored history could be used.")
    boolean fresh;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @CommandLine.Mixin
    NoDaemonOption noDaemon;

    @Option(names = "--classify-liveness", description = "For each @eventually span still open at the end of the trace, "
            + "run random walks of the simulated continuation from the state replay rebuilds at the end: 'transient' "
            + "if a walk reaches a state where the predicate holds, 'dead' if none does; for a dead one, the critical "
            + "transition inside the recorded run (MaceMC). Marks the spans in the table and in --json.")
    boolean classifyLiveness;

    @Option(names = "--walks", paramLabel = "K", defaultValue = "20",
            description = "With --classify-liveness: random walks from each state probed (default: ${DEFAULT-VALUE}).")
    int walks;

    @Option(names = "--max-depth", paramLabel = "D",
            description = "With --classify-liveness: dmax, the most steps of a walk's run counted from the trace's start "
                    + "(default: the trace's handler calls + 10000).")
    Integer maxDepth;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
            description = "With --classify-liveness: seed of the walks' choices (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", paramLabel = "DIR",
            description = "With --classify-liveness: where each dead span's nearest live run goes (PREDICATE-live.trace "
                    + "and its schedule; default: TRACE-liveness beside the trace).")
    Path out;

    /** The walks' network: the recorded run's, with these on top (see docs/liveness-from-trace.md). */
    @CommandLine.Mixin
    NetworkFaultOptions faults = new NetworkFaultOptions();

    /** A deployment's fault options, not shown in the help: given, they are refused in one line saying why. */
    @Option(names = {"--kill", "--restart"}, hidden = true, paramLabel = "NODE@TIME")
    List<String> deploymentFaults = new ArrayList<>();

    @Option(names = "--fault-seed", hidden = true, paramLabel = "S")
    Long faultSeed;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The fault options as this command was given them, for the commands it prints. */
    private List<String> faultArgs() {
        java.util.Set<String> names = java.util.Set.of("--drop", "--dup", "--delay", "--partition", "--crash-rate",
                "--restart-delay", "--clock-skew");
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (names.contains(name)) {
                kept.add(arg);
                if (!arg.contains("=") && i + 1 < args.size()) {
                    kept.add(args.get(++i));
                }
            }
        }
        return kept;
    }

    /** Where the nearest live runs go: --out, else TRACE-liveness beside the trace. */
    private Path livenessOut() {
        if (out != null) {
            return out;
        }
        Path name = trace.getFileName() != null ? trace : trace.toAbsolutePath().normalize();
        return name.resolveSibling(name.getFileName() + "-liveness");
    }

    /**
     * The state history of {@code trace} this command reads and writes: the H2 database under
     * {@code TRACE/check/}, so that a later check with the same tables skips the replay and {@code deja sql} can
     * query it. A trace directory that cannot be written gets an in-memory history, with a warning.
     */
    static StateHistory openHistory(Path trace, PrintWriter err) {
        if (!Files.isWritable(trace) && !Files.isWritable(trace.resolve(H2StateHistory.DIRECTORY))) {
            err.println("deja check: " + trace + " is not writable, so the state history is kept in memory only"
                    + " (no re-check without replay, no 'deja sql')");
            return new InMemoryStateHistory();
        }
        return H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE, err::println);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (!deploymentFaults.isEmpty() || faultSeed != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kill, --restart and --fault-seed are for "
                    + "'deja deploy'; the walks of --classify-liveness are simulated (--drop, --dup, --delay, ...)");
        }
        if (!classifyLiveness && (out != null || !faultArgs().isEmpty())) {
            throw new CommandLine.ParameterException(spec.commandLine(), (out != null ? "--out" : faultArgs().getFirst())
                    + " goes with --classify-liveness (it sets the walks' output or network)");
        }
        if (!Files.isRegularFile(script)) {
            throw new UsageException("no script at " + script);
        }
        if (!Files.isDirectory(trace)) {
            throw new UsageException("no trace at " + trace);
        }
        StateHistory opened;
        try {
            opened = openHistory(trace, err);
        } catch (CheckDatabaseException e) {
            throw new UsageException(e.getMessage(), e);
        }
        // Python's start (about a second in a new JVM) goes on beside what comes before the check itself, in the engine
        // that the first check takes.
        if (interpretsFirstHere()) {
            interpreted(() -> {
                Checker.startPython(script, checkOptions(), opened);
                return null;
            });
        } else {
            Checker.startPython(script, checkOptions(), opened);
        }
        try (StateHistory history = opened) {
            int status = checkOnceInterpretedFirst(history, err);
            if (!watch || launcherRestart) {
                return status;
            }
            FileTime seen = Files.getLastModifiedTime(script);
            String checkedText = Files.readString(script);
            err.println("deja check: watching " + script + " (Ctrl-C ends)");
            while (true) {
                Thread.sleep(300);
                FileTime now = Files.getLastModifiedTime(script);
                if (!now.equals(seen)) {
                    seen = now;
                    String text = Files.readString(script);
                    CheckReport previous = lastReport;
                    System.out.println();
                    long startNanos = System.nanoTime();
                    status = checkOnceInterpretedFirst(history, err);
                    if (launcherRestart) {
                        // The launcher runs --watch again with the JIT, which checks this text first.
                        return status;
                    }
                    // What this save changed: declarations, findings, time.
                    WatchDiff.print(checkedText, text, previous, lastReport, System.nanoTime() - startNanos, err);
                    checkedText = text;
                    err.println("deja check: watching " + script + " (Ctrl-C ends)");
                }
            }
        }
    }

    /** The options of this command's checks that its arguments set: what is checked, and how. */
    private Checker.Options checkOptions() {
        return Checker.Options.defaults()
                .withRange(range.fromOrStart(), range.toOrEnd())
                .withLimit(limit == null ? Long.MAX_VALUE : limit)
                .withPredicateTimeout(predicateTimeout)
                .withReuseHistory(!fresh);
    }

    /** Whether to start this check again with the JIT, asked as it goes (see {@link JitRestart}). */
    private JitRestart jitRestart = JitRestart.fromLauncher();

    /** How long a check runs before its trace's entries are counted (see checkOnce). */
    private static final Duration COUNT_AFTER = Duration.ofMillis(300);

    /**
     * The system property by which the warm engine of {@code deja daemon} says that it runs this command: a JVM that
     * stays, as that of --watch does (see {@link #checkOnceInterpretedFirst}).
     */
    public static final String WARM_ENGINE_PROPERTY = "deja.check.warmEngine";

    /** Whether this command's checks run interpreted first in this JVM (see {@link #checkOnceInterpretedFirst}). */
    private boolean interpretsFirstHere() {
        return interpretsFirst(watch || Boolean.getBoolean(WARM_ENGINE_PROPERTY), classifyLiveness, System.getenv());
    }

    /**
     * Whether a check runs interpreted first, and again with the JIT in the same JVM if it turns out heavy: in a JVM that
     * stays ({@code longLived}: --watch, or the warm engine) and has the JIT, unless it checks with --classify-liveness
     * (many steps of random walks), {@code environment} sets DEJA_FULL_JIT=1, the launcher already runs it
     * interpreted, or the launcher started it again with the JIT after such a check ({@link JitRestart#RESTARTED_PROPERTY}).
     */
    static boolean interpretsFirst(boolean longLived, boolean classifyLiveness, Map<String, String> environment) {
        return longLived && !classifyLiveness && !"1".equals(environment.get("DEJA_FULL_JIT"))
                && !Boolean.getBoolean(JitRestart.RESTARTED_PROPERTY)
                && !Checker.pythonInterpretedOnPurpose() && Checker.pythonJit();
    }

    /** The status by which a check asks to be run again with the JIT in this JVM. */
    private static final int RESTART_HERE = 250;

    /**
     * {@link #checkOnce}, in a JVM that stays (--watch, the warm engine) with its predicates interpreted first and again
     * with the JIT if they turn out heavy ({@link JitRestart}), in a second Python engine that never compiles (see
     * {@code PythonEngine.forThisCheck}): each new script text (an edit makes one) has its code compiled again by the
     * JIT while the check runs, on the cores the check needs. In one JVM, for each example in turn, two full checks and
     * 20 re-checks with one predicate edited (the benchmark's 3,000-step traces): the full checks took 0.7-1.9 s
     * interpreted against 1.2-3.0 s with the JIT, the median re-check 37-199 ms against 64-297 ms (docs/recheck.md).
     */
    private int checkOnceInterpretedFirst(StateHistory history, PrintWriter err) {
        if (!interpretsFirstHere()) {
            return checkOnce(history, err);
        }
        int status;
        jitRestart = JitRestart.inThisJvm(RESTART_HERE);
        try {
            status = interpreted(() -> checkOnce(history, err));
        } finally {
            jitRestart = JitRestart.fromLauncher();
        }
        // The check said why on standard error.
        return status == RESTART_HERE ? checkOnce(history, err) : status;
    }

    /**
     * Runs {@code work} with the Python engine of checks run interpreted on purpose ({@link
     * Checker#PYTHON_INTERPRETED_PROPERTY}, set for its duration): the engine a check of a JVM that stays starts on.
     */
    private static <T> T interpreted(java.util.function.Supplier<T> work) {
        System.setProperty(Checker.PYTHON_INTERPRETED_PROPERTY, "a check of a JVM that stays");
        try {
            return work.get();
        } finally {
            System.clearProperty(Checker.PYTHON_INTERPRETED_PROPERTY);
        }
    }

    /**
     * Whether the latest check asked the launcher to run the command again with the JIT: then --watch ends too, with
     * that status, and the launcher starts it again.
     */
    private boolean launcherRestart;

    /** The report of the latest check of this command, null if it failed; what --watch compares the next with. */
    private CheckReport lastReport;

    private int checkOnce(StateHistory history, PrintWriter err) {
        lastReport = null;
        launcherRestart = false;
        List<Threshold> parsedThresholds;
        try {
            parsedThresholds = thresholds.stream().map(Threshold::parse).toList();
        } catch (IllegalArgumentException e) {
            err.println("deja check: " + e.getMessage());
            return 2;
        }
        // Counting the entries reads every node's log (about 40 ms for 77,000 entries in a warm JVM, 250 ms for 5,800 in
        // a new one), and only the progress bar's total and the JIT restart's pace need it, neither before a second has
        // passed: it starts beside the check once that ran for a moment, so that a quick re-check never counts.
        CompletableFuture<Long> lastPosition = new CompletableFuture<>();
        AtomicBoolean checkEnded = new AtomicBoolean();
        Thread.ofPlatform().daemon().name("deja-check-count").start(() -> {
            try {
                Thread.sleep(COUNT_AFTER);
                if (checkEnded.get()) {
                    return;
                }
                long total = Trace.open(trace).nodes().stream().mapToLong(NodeLog::entryCount).sum();
                lastPosition.complete(Math.min(range.toOrEnd(), Math.max(0, total - 1)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // nothing interrupts it; the count is then never known
            } catch (RuntimeException | Error e) {
                lastPosition.completeExceptionally(e);
            }
        });
        Progress progress = Progress.start("check", Progress.UNKNOWN_TOTAL, "events");
        lastPosition.thenAccept(last -> progress.total(last + 1));
        Checker.Options options = checkOptions()
                .withClassLoader(UserClasspath.loader(classpath))
                .withProgress(position -> {
                    progress.stepTo(position + 1);
                    if (lastPosition.isDone() && !lastPosition.isCompletedExceptionally()) {
                        jitRestart.check(position, lastPosition.join());
                    }
                })
                .withListener(new Checker.Listener() {
                    @Override
                    public void notice(String line) {
                        err.println("deja check: " + line);
                        err.flush();
                    }

                    @Override
                    public void evaluated(Map<String, Long> counts, Set<String> reused) {
                        reusedPredicates = reused.size();
                    }

                    @Override
                    public void evaluatedWithoutPython() {
                        withoutPython = true;
                    }
                });
        reusedPredicates = 0;
        withoutPython = false;
        long startNanos = System.nanoTime();
        try {
            // Before checking: state replayed with other code than the recorded one is not the recorded state. From the
            // manifests alone: a re-check from the history opens no node log.
            for (String difference : CodeFingerprint.differences(Trace.manifests(trace), options.classLoader())) {
                err.println("deja check: warning: " + difference + "; the replay may diverge");
            }
        } catch (TraceFormatException e) {
            checkEnded.set(true);
            progress.close();
            err.println("deja check: " + e.getMessage());
            return 2;
        }
        CheckReport report;
        try {
            report = Checker.check(trace, script, options, history);
        } catch (ScriptException | Checker.CheckFailedException | TraceFormatException | CheckDatabaseException
                 | IllegalArgumentException | UncheckedIOException e) {
            checkEnded.set(true);
            progress.close();
            err.println("deja check: " + e.getMessage());
            err.flush();
            return ExitCodes.USAGE;
        } catch (JitRestart.Restart restart) {
            checkEnded.set(true);
            progress.close();
            err.println("deja check: " + restart.getMessage());
            err.flush();
            launcherRestart = restart.byTheLauncher();
            return restart.status();
        }
        progress.close();
        checkEnded.set(true);
        if (lastPosition.isCompletedExceptionally()) {
            // This check did without the count (a replay would have failed on the same log): said, not skipped.
            Throwable failure = lastPosition.exceptionNow();
            err.println("deja check: warning: counting the trace's entries failed: " + (failure.getMessage() != null
                    ? failure.getMessage() : failure.toString()));
        }
        report = report.classified(parsedThresholds);
        lastReport = report;
        try {
            // One truth: deja sql and deja view show the findings this command prints, classified as here.
            history.replaceViolations(report.violations());
        } catch (CheckDatabaseException e) {
            err.println("deja check: the findings could not be stored for deja sql and deja view: " + e.getMessage());
        }
        LivenessColumn.Classified classified = LivenessColumn.Classified.NONE;
        if (classifyLiveness) {
            try {
                classified = LivenessColumn.classify(report, trace, script, UserClasspath.loader(classpath), walks,
                        maxDepth, seed, predicateTimeout, new LivenessColumn.Walks(faults, faultArgs(), livenessOut()));
            } catch (IllegalArgumentException | TraceFormatException | UncheckedIOException e) {
                err.println("deja check: --classify-liveness: " + e.getMessage());
                err.flush();
                return ExitCodes.USAGE;
            }
        }
        Map<Violation, RecordedLiveness.Classification> liveness = classified.spans();
        if (!liveness.isEmpty()) {
            json.write(LivenessColumn.json(report, classified));
        } else if (json.file() != null) {
            report.write(json.file());
        } else {
            json.write(report);
        }
        PrintStream text = json.toStandardOutput() ? System.err : System.out;
        print(report, text, liveness);
        if (classifyLiveness) {
            LivenessColumn.print(classified, text);
        }
        // Once per run (not again on each --watch re-check): how fast predicates run depends on it, about 20x.
        // A check that needed no Python says so instead: asking whether the JIT is on would start the Python engine.
        String engine = withoutPython ? "; Python not needed (no predicate changed)" : engineSaid ? ""
                : Checker.pythonInterpretedOnPurpose() && watch
                ? "; Python predicates interpreted (--watch starts each check so, and again with the JIT if one turns out"
                + " heavy; DEJA_FULL_JIT=1 compiles them)"
                : Checker.pythonInterpretedOnPurpose()
                ? "; Python predicates interpreted (a one-shot check; DEJA_FULL_JIT=1 compiles them)"
                : Checker.pythonJit() ? "; Python predicates compiled by the Graal JIT"
                : "; Python predicates interpreted (no Graal JIT in this JVM)";
        engineSaid |= !withoutPython;
        String reuse = reusedPredicates == 0 ? "" : String.format(Locale.ROOT, ", reusing %d of %d predicates' results",
                reusedPredicates, report.reads().size());
        err.printf(Locale.ROOT, "deja check: %s%s in %.2f s%s%n", report.fromHistory()
                ? "evaluated from the stored state history (tables unchanged, no replay)" : "replayed the trace", reuse,
                (System.nanoTime() - startNanos) / 1e9, engine);
        return report.counted() > 0 ? ExitCodes.FINDINGS : ExitCodes.OK;
    }

    /** How many predicates' results the latest check reused from the stored history. */
    private int reusedPredicates;

    /** Whether the latest check needed no Python (every predicate's results reused, see Checker.Listener). */
    private boolean withoutPython;

    /** Whether this run said whether the Python JIT is on. */
    private boolean engineSaid;

    /** Whether a finding makes the check fail: everything but an eventually-span that closed or one screened out. */
    static boolean fails(Violation violation) {
        return violation.counted();
    }

    static void print(CheckReport report, PrintStream out) {
        print(report, out, Map.of());
    }

    /** The report's tables; open spans classified by {@code --classify-liveness} show their verdict in STATUS. */
    static void print(CheckReport report, PrintStream out, Map<Violation, RecordedLiveness.Classification> liveness) {
        List<Violation> violations = report.violations();
        if (!violations.isEmpty()) {
            boolean witnesses = violations.stream().anyMatch(v -> v.witness() != null);
            TextTable table = witnesses
                    ? TextTable.withColumns("#", "POSITION", "LAMPORT", "NODE", "PREDICATE", "STATUS", "WITNESS", "AUX")
                    : TextTable.withColumns("#", "POSITION", "LAMPORT", "NODE", "PREDICATE", "STATUS", "AUX");
            int number = 0;
            for (Violation v : violations) {
                number++;
                if (witnesses) {
                    table.row(number, v.event().position(), v.event().lamport(), v.event().node().value(),
                            v.predicate(), status(v, liveness), v.witness() == null ? "-" : PythonText.of(v.witness()),
                            auxColumn(v));
                } else {
                    table.row(number, v.event().position(), v.event().lamport(), v.event().node().value(),
                            v.predicate(), status(v, liveness), auxColumn(v));
                }
                if (!v.message().isEmpty()) {
                    for (String messageLine : v.message().split("\n")) {
                        table.note(messageLine);
                    }
                }
            }
            out.print(table.render());
            out.println();
        }
        Map<String, long[]> summary = new LinkedHashMap<>();
        for (Violation v : violations) {
            long[] entry = summary.computeIfAbsent(v.predicate(), k -> new long[] {0, v.event().position()});
            entry[0]++;
        }
        if (!summary.isEmpty()) {
            TextTable table = TextTable.withColumns("PREDICATE", "FINDINGS", "FIRST");
            summary.forEach((name, entry) -> table.row(name, entry[0], entry[1]));
            out.print(table.render());
        }
        long failing = report.counted();
        String screened = report.screenedOut() == 0 ? "" : String.format(Locale.ROOT, " (%d screened out below %s)",
                report.screenedOut(), String.join(", ", report.thresholds()));
        out.printf(Locale.ROOT, "checked %d handler calls: %s%s%n", report.eventsChecked(),
                failing == 0 ? "no violations" : failing + (failing == 1 ? " violation" : " violations"), screened);
        out.flush();
    }

    /** The finding's status in the words every command uses, marked when a threshold screened it out. */
    private static String status(Violation v) {
        return v.belowThreshold() ? v.statusText() + " (below)" : v.statusText();
    }

    /** As {@link #status(Violation)}, with the liveness verdict of a classified open span. */
    private static String status(Violation v, Map<Violation, RecordedLiveness.Classification> liveness) {
        RecordedLiveness.Classification verdict = liveness.get(v);
        return verdict == null ? status(v) : status(v) + ", " + verdict.verdict().label();
    }

    /** A finding's aux values; for a span, also those at its last false event. */
    private static String auxColumn(Violation v) {
        return v.auxAtEnd().isEmpty() ? aux(v.aux()) : aux(v.aux()) + "  (at end: " + aux(v.auxAtEnd()) + ")";
    }

    /** Aux values the way Python would print them, since that is what the script author wrote. */
    static String aux(Map<String, Object> values) {
        StringBuilder out = new StringBuilder();
        values.forEach((name, value) -> {
            if (!out.isEmpty()) {
                out.append(' ');
            }
            out.append(name).append('=').append(PythonText.of(value));
        });
        return out.toString();
    }
}
