package dev.deja.check;

import dev.deja.check.internal.BackgroundAppender;
import dev.deja.check.internal.PredicateFingerprints;
import dev.deja.check.internal.PythonEngine;
import dev.deja.check.internal.ScriptEvaluator;
import dev.deja.check.internal.StateExtractor;
import dev.deja.check.internal.StepPipeline;
import dev.deja.node.NodeId;
import dev.deja.replay.Divergence;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * Checks a trace against a predicate script: replays the trace (or reads the stored state history when the
 * script's tables are unchanged), refreshes the declared tables after every handler event, evaluates the
 * script, and returns every finding.
 *
 * <p>An event, for the checker, is a merged entry at which a handler began ({@code start}, {@code receive},
 * {@code timer}, and {@code crash}, where the next incarnation starts); the sends and observations inside a
 * handler are part of its event. Positions are those of the merged order, as in {@code deja replay} and
 * {@code deja dump}.
 *
 * <p>Findings: an {@code always} predicate is reported at each event where it turns false (not again while
 * it stays false); an {@code eventually} predicate gives a span from the event where it turns false to the
 * event where it turns true again, or open at the end; a predicate that raises is reported as ERROR and one
 * that runs longer than the timeout as TIMEOUT, and the check goes on.
 */
public final class Checker {
    private Checker() {
    }

    /**
     * How to check.
     *
     * @param fromPosition      report findings at or after this position only (state is still built from the start)
     * @param toPosition        stop after the event at this position; {@link Long#MAX_VALUE} for all
     * @param limit             stop after this many findings; {@link Long#MAX_VALUE} for all
     * @param predicateTimeout  the longest one event's evaluation may take before the running predicate is stopped
     * @param reuseHistory      whether a complete stored history with the same tables may replace the replay
     * @param classLoader       loads node classes, message classes and table classes
     * @param scriptOutput      where the script's {@code print} goes
     * @param progress          called now and then with the position reached
     * @param listener          told why the stored history could not be used, and what was evaluated
     */
    public record Options(long fromPosition, long toPosition, long limit, Duration predicateTimeout,
                          boolean reuseHistory, ClassLoader classLoader, OutputStream scriptOutput,
                          LongConsumer progress, Listener listener) {
        public Options {
            Objects.requireNonNull(predicateTimeout, "predicateTimeout");
            Objects.requireNonNull(classLoader, "classLoader");
            Objects.requireNonNull(scriptOutput, "scriptOutput");
            Objects.requireNonNull(progress, "progress");
            Objects.requireNonNull(listener, "listener");
            if (fromPosition < 0 || toPosition < 0 || limit < 1) {
                throw new IllegalArgumentException("positions must be at least 0 and the limit at least 1");
            }
            if (predicateTimeout.isNegative() || predicateTimeout.isZero()) {
                throw new IllegalArgumentException("the predicate timeout must be positive, was " + predicateTimeout);
            }
        }

        /** Everything, a 10 s predicate timeout, history reused, script output to standard error. */
        public static Options defaults() {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return new Options(0, Long.MAX_VALUE, Long.MAX_VALUE, Duration.ofSeconds(10), true,
                    loader != null ? loader : Checker.class.getClassLoader(), System.err, position -> { }, new Listener() { });
        }

        public Options withRange(long from, long to) {
            return new Options(from, to, limit, predicateTimeout, reuseHistory, classLoader, scriptOutput, progress, listener);
        }

        public Options withLimit(long value) {
            return new Options(fromPosition, toPosition, value, predicateTimeout, reuseHistory, classLoader, scriptOutput, progress, listener);
        }

        public Options withPredicateTimeout(Duration value) {
            return new Options(fromPosition, toPosition, limit, value, reuseHistory, classLoader, scriptOutput, progress, listener);
        }

        public Options withReuseHistory(boolean value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, value, classLoader, scriptOutput, progress, listener);
        }

        public Options withClassLoader(ClassLoader value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, value, scriptOutput, progress, listener);
        }

        public Options withScriptOutput(OutputStream value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, classLoader, value, progress, listener);
        }

        public Options withListener(Listener value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, classLoader, scriptOutput, progress, value);
        }

        public Options withProgress(LongConsumer value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, classLoader, scriptOutput, value, listener);
        }
    }

    /** Told what a check could not reuse and what it evaluated; every method may be left out. */
    public interface Listener {
        /** A line for the user, such as why the stored history could not serve the check and the trace is replayed. */
        default void notice(String line) {
        }

        /**
         * After the check: how many times each predicate and derived value was evaluated, and the predicates whose
         * results were reused from the stored history instead (never evaluated).
         */
        default void evaluated(Map<String, Long> counts, java.util.Set<String> reused) {
        }

        /**
         * Before {@link #evaluated}, when the check needed no Python at all: every predicate's results came from the
         * stored history and the script's outline told which predicates it declares (see {@link ScriptOutline}).
         */
        default void evaluatedWithoutPython() {
        }

        /**
         * Before {@link #evaluated}: how many steps the check handed to Python, of the {@code events} it checked (a
         * re-check hands it only those that can change what it evaluates).
         */
        default void stepsEvaluated(long steps, long events) {
        }
    }

    /**
     * A replay that went wrong under the checker (a divergence): the state cannot be trusted past it.
     */
    public static final class CheckFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public CheckFailedException(String message) {
            super(message);
        }
    }

    /**
     * Whether Python predicates are compiled by the Graal JIT in this JVM (it needs {@code -XX:+EnableJVMCI} and the
     * compiler jars of the JDK's exact update); without it they run interpreted, about 20 times slower.
     */
    public static boolean pythonJit() {
        return PythonEngine.jit();
    }

    /**
     * The system property by which a check is run with its Python predicates interpreted on purpose; its value says why.
     * The launcher sets it for a one-shot check in a new JVM, which then has no JIT at all; the warm engine of {@code
     * deja daemon} sets it while it runs a check, which then takes its contexts from a second Python engine that never
     * compiles.
     */
    public static final String PYTHON_INTERPRETED_PROPERTY = PythonEngine.INTERPRETED_ON_PURPOSE;

    /**
     * Whether a check that starts now runs its Python predicates interpreted on purpose ({@link
     * #PYTHON_INTERPRETED_PROPERTY}): a one-shot check, which runs Python from the JVM's AOT cache instead, faster for a
     * JVM that checks once, or a check of the warm engine.
     */
    public static boolean pythonInterpretedOnPurpose() {
        return PythonEngine.interpretedOnPurpose().isPresent();
    }

    /**
     * Prepares this process's Python engine and one context, which the next check takes over (what a long-lived
     * process, such as the warm engine of {@code deja daemon}, does before its first check).
     */
    public static void warmUp() {
        warmUp(PythonEngine.get());
    }

    /**
     * Prepares, as {@link #warmUp()} does, the engine of checks run interpreted on purpose (the warm engine's checks: in
     * a JVM with the JIT, a second engine that never compiles; see {@code PythonEngine.forThisCheck}).
     */
    public static void warmUpInterpreted() {
        warmUp(PythonEngine.interpreted());
    }

    private static void warmUp(org.graalvm.polyglot.Engine engine) {
        String script = "from deja import always\n\n@always\ndef warm():\n    return True\n";
        try (ScriptEvaluator ignored = new ScriptEvaluator(engine, script, "<warm-up>", Duration.ofSeconds(60),
                OutputStream.nullOutputStream())) {
            // Closing gives the context back for the next check.
        }
    }

    /**
     * Starts this process's Python engine and a context on a thread of its own if a check of {@code script} with
     * {@code options} over {@code history} may need Python, so that the check finds it ready or nearly: a one-shot
     * command calls this before its other preparations. It may not when {@code history} holds the outline of this very
     * script text (a re-check that likely needs no Python, see {@link ScriptOutline}); then nothing is started.
     */
    public static void startPython(Path script, Options options, StateHistory history) {
        if (options.reuseHistory() && wholeTrace(options)) {
            try {
                if (storedOutline(Files.readString(script, StandardCharsets.UTF_8), history).isPresent()) {
                    return;
                }
            } catch (IOException | RuntimeException e) {
                // The check itself will say what is wrong with the script or the history.
                return;
            }
        }
        PythonEngine.startContextInBackground();
    }

    /**
     * Checks {@code trace} with the script at {@code script}, writing the state through {@code history}.
     *
     * @throws ScriptException          if the script cannot be loaded (before any replay)
     * @throws CheckFailedException     if the replay diverged
     */
    public static CheckReport check(Path trace, Path script, Options options, StateHistory history) {
        String text;
        try {
            text = Files.readString(script, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the script " + script + ": " + e.getMessage(), e);
        }
        boolean wholeTrace = wholeTrace(options);
        String settings = "predicate timeout " + options.predicateTimeout().toMillis() + " ms";
        if (options.reuseHistory() && wholeTrace) {
            Optional<CheckReport> reused = withoutPython(trace, script, text, settings, options, history);
            if (reused.isPresent()) {
                return reused.get();
            }
        }
        PythonEngine.warnIfInterpreted(System.err);
        CountingOutput output = new CountingOutput(options.scriptOutput());
        try (ScriptEvaluator evaluator = new ScriptEvaluator(text, script.toString(), options.predicateTimeout(), output)) {
            // An outline only for a script whose loading printed nothing: a re-check without Python would not print it.
            boolean quietLoad = evaluator.flushScriptOutput() && output.count() == 0;
            List<TableSchema> schemas = evaluator.schemas();
            ScriptOutline outline = quietLoad ? new ScriptOutline(ScriptOutline.digestOf(text, Engine.DIGEST), schemas,
                    evaluator.predicateNames(), evaluator.globalNames().stream()
                    .map(g -> new ScriptOutline.Global(g.name(), g.what(), g.declared())).toList()) : null;
            // The script's file name, like line numbers, shows only in error findings' tracebacks (Fingerprint.lines).
            Map<String, PredicateFingerprints.Fingerprint> fingerprints = PredicateFingerprints.of(text, script.toString(),
                    evaluator.globalNames(), settings, Engine.DIGEST);
            Optional<String> unservable = options.reuseHistory() ? history.unservable(schemas) : Optional.empty();
            if (options.reuseHistory() && unservable.isEmpty()) {
                return fromHistory(trace, script, text, options, history, evaluator, schemas, fingerprints, wholeTrace,
                        outline);
            }
            if (unservable.isPresent() && !unservable.get().equals(StateHistory.NO_HISTORY)) {
                options.listener().notice("replaying the trace: " + unservable.get());
            }
            evaluator.nodeDeaths(NodeDeaths.of(Trace.open(trace)));
            Run run = new Run(evaluator, options, history, null);
            if (wholeTrace) {
                evaluator.recordDerived();
            }
            StateExtractor extractor;
            try {
                extractor = new StateExtractor(schemas, options.classLoader());
            } catch (IllegalArgumentException e) {
                throw new ScriptException(script + ": " + e.getMessage());
            }
            Trace opened = Trace.open(trace);
            ReplayResult result;
            boolean stopped = false;
            // Three threads: the replay with the state extraction, the history's writes, and the predicates (this one).
            // The history is started on the writer's thread, while the replay starts here.
            try (BackgroundAppender appender = new BackgroundAppender(history, "deja-check-history-writer",
                    started -> started.beginCheck(schemas))) {
                try {
                    result = StepPipeline.runBatches("deja-check-replay", sink -> Replayer.replay(opened, Replayer.Options.defaults()
                            .withClassLoader(options.classLoader())
                            .withUntilPosition(options.toPosition() == Long.MAX_VALUE ? Long.MAX_VALUE : options.toPosition() + 1)
                            .withListener((event, position, state) -> {
                                if (!event.startedHandler()) {
                                    return;
                                }
                                TraceEvent entry = event.entry();
                                StateStep step = new StateStep(CheckedEvent.of(entry, position),
                                        extractor.extract(entry.node(), state.node(entry.node()).orElse(null)));
                                appender.append(step);
                                sink.accept(step);
                            })), run::steps);
                } catch (Stop stop) {
                    stopped = true;
                    result = null;
                }
                // Also after --limit stopped the check: the history keeps every step replayed so far.
                appender.finish();
            }
            if (result != null && !result.divergences().isEmpty()) {
                Divergence divergence = result.divergences().getFirst();
                throw new CheckFailedException("the replay diverged, so the state cannot be checked past it: "
                        + divergence.describe());
            }
            boolean complete = !stopped && options.toPosition() == Long.MAX_VALUE;
            CheckReport report = run.report(trace, script, false, complete);
            if (complete) {
                history.finishCheck();
                if (wholeTrace) {
                    run.storeResults(fingerprints, Map.of(), report);
                    run.storeDerived(fingerprints, null, Set.of());
                    storeOutline(history, outline);
                }
            }
            options.listener().stepsEvaluated(evaluator.stepsHanded(), report.eventsChecked());
            options.listener().evaluated(evaluator.evaluationCounts(), Set.of());
            return report;
        }
    }

    /**
     * Checks from the stored history: reuses the stored results of every predicate whose fingerprint is unchanged,
     * gives the others the stored values of the derived values they read whose fingerprints are unchanged instead of
     * evaluating those, and evaluates them only at the steps that change what they read.
     */
    private static CheckReport fromHistory(Path trace, Path script, String text, Options options, StateHistory history,
                                           ScriptEvaluator evaluator, List<TableSchema> schemas,
                                           Map<String, PredicateFingerprints.Fingerprint> fingerprints,
                                           boolean wholeTrace, ScriptOutline outline) {
        Optional<PredicateResults> stored = wholeTrace ? history.predicateResults() : Optional.empty();
        Map<String, PredicateResults.Result> reused = new LinkedHashMap<>();
        List<String> active = new ArrayList<>();
        for (String predicate : evaluator.predicateNames()) {
            PredicateResults.Result result = reusable(fingerprints.get(predicate),
                    stored.map(r -> r.byPredicate().get(predicate)).orElse(null));
            if (result != null) {
                reused.put(predicate, result);
            } else {
                active.add(predicate);
            }
        }
        List<ScriptEvaluator.GlobalName> globals = evaluator.globalNames();
        Set<String> allDerived = new java.util.TreeSet<>();
        globals.stream().filter(g -> "derived".equals(g.what())).forEach(g -> allDerived.add(g.declared()));
        Set<String> servedNames = servable(history, fingerprints, active, allDerived, stored.isPresent());
        StepFilter filter;
        // The derived values evaluated over the whole history (null: every one), whose values can be stored anew.
        Set<String> evaluated = null;
        // Whether what is evaluated may read the built-in nodes table, which needs the trace's node deaths.
        boolean readsNodes = !active.isEmpty() || stored.isEmpty();
        if (!reused.isEmpty() || !servedNames.isEmpty()) {
            PredicateFingerprints.Reach reach;
            Set<String> derived;
            Map<String, List<DerivedValues.Change>> servedChanges = new LinkedHashMap<>();
            Map<String, List<DerivedValues.Change>> storedChanges = new java.util.HashMap<>();
            long[] handed;
            while (true) {
                reach = runningClosure(text, globals, fingerprints, evaluator.predicateNames(), active, reused,
                        allDerived, servedNames);
                derived = new java.util.TreeSet<>(reach.derived());
                if (reach.builtins()) {
                    derived.addAll(allDerived);
                    derived.removeAll(servedNames);
                }
                Map<String, List<DerivedValues.Change>> changes = new LinkedHashMap<>();
                for (String name : servedNames) {
                    List<DerivedValues.Change> all = storedChanges.computeIfAbsent(name, history::derivedChanges);
                    // Nothing evaluated sees the values of one it cannot read directly: only what it read, where that
                    // changed.
                    changes.put(name, reach.served().contains(name) ? all : all.stream()
                            .filter(change -> change.reads() != null)
                            .map(change -> new DerivedValues.Change(change.position(), null, change.reads())).toList());
                }
                handed = null;
                if (stored.isPresent() && !reach.builtins() && reach.tables().isEmpty()) {
                    Set<String> merging = coalescable(text, globals, active, derived, servedNames, reach, evaluator);
                    OutcomeChanges probed = derived.isEmpty() && reach.mutables().isEmpty()
                            ? outcomeChanges(text, globals, active, servedNames, changes, evaluator) : null;
                    if (!merging.isEmpty() || probed != null) {
                        // The values the probed predicates read reach Python merged too, due where their outcomes
                        // change; any other that is not merged (one an aux value reads, keeping several versions) is
                        // due at each change.
                        if (probed != null) {
                            merging.addAll(probed.read());
                        }
                        long[] due = positions(changes, name -> !merging.contains(name));
                        if (probed != null) {
                            due = java.util.stream.LongStream.concat(java.util.Arrays.stream(probed.due()),
                                    java.util.Arrays.stream(due)).sorted().distinct().toArray();
                        }
                        handed = handed(changes, due);
                        for (String name : merging) {
                            changes.put(name, merged(changes.get(name), handed));
                        }
                    }
                }
                Optional<String> refused = readServed(evaluator, changes, servedChanges, options);
                if (refused.isEmpty()) {
                    break;
                }
                servedNames.remove(refused.get());
                closeServed(servedNames, fingerprints);
            }
            readsNodes = !active.isEmpty() && reach.builtins();
            Set<Long> positions = new java.util.HashSet<>();
            for (long position : handed != null ? handed : positions(servedChanges, name -> true)) {
                positions.add(position);
            }
            if (!servedNames.isEmpty()) {
                evaluator.commitServed(servedNames);
            }
            evaluator.activate(active, derived);
            evaluated = derived;
            filter = new StepFilter(schemas, reach.builtins() ? null : reach.tables(), positions);
        } else {
            filter = new StepFilter(schemas, null, Set.of());
        }
        if (wholeTrace) {
            evaluator.recordDerived();
        }
        if (readsNodes) {
            evaluator.nodeDeaths(NodeDeaths.of(Trace.open(trace)));
        }
        Run run = new Run(evaluator, options, history, filter);
        boolean stopped = false;
        // Where the evaluated predicates read no built-in, the steps where a served value they read changes and those
        // that change a table they read are all they need: the stretches of the history without one are not even read.
        boolean selective = stored.isPresent() && evaluated != null && filter.tables != null;
        if (!active.isEmpty() || stored.isEmpty()) {
            try {
                // Changes of tables that nothing evaluated reads, or that the script no longer declares, are left
                // undecoded (the filter would drop them).
                Set<String> decoded = filter.tables != null ? filter.tables
                        : schemas.stream().map(TableSchema::name).collect(java.util.stream.Collectors.toSet());
                StepPipeline.runBatches("deja-check-history", sink -> selective
                        ? history.replayHistoryAt(filter.positions, filter.tables, decoded, sink)
                        : history.replayHistory(0, decoded, sink), run::steps);
            } catch (Stop stop) {
                // --to or --limit reached
                stopped = true;
            }
            if (selective) {
                run.events = stored.get().eventsChecked();
            }
        } else {
            run.events = stored.get().eventsChecked();
        }
        CheckReport report = reused.isEmpty() ? run.report(trace, script, true, false)
                : run.merged(trace, script, reused);
        if (!stopped && options.toPosition() == Long.MAX_VALUE) {
            // The stored violations are the latest check's, whether it replayed or not.
            history.replaceViolations(report.violations());
        }
        // With every predicate reused, what is stored stays as it is: nothing to write.
        if (!stopped && wholeTrace && !active.isEmpty()) {
            run.storeResults(fingerprints, reused, report);
            // Kept as stored: the served ones, and those nothing evaluated whose fingerprint is unchanged.
            Map<String, String> storedDerived = stored.isPresent() ? history.derivedFingerprints() : Map.of();
            Set<String> kept = new java.util.TreeSet<>(servedNames);
            for (String derived : allDerived) {
                PredicateFingerprints.Fingerprint fingerprint = fingerprints.get(derived);
                if (evaluated != null && !evaluated.contains(derived) && fingerprint != null
                        && fingerprint.code().equals(storedDerived.get(derived))) {
                    kept.add(derived);
                }
            }
            run.storeDerived(fingerprints, evaluated, kept);
        }
        if (!stopped && wholeTrace && stored.isPresent()) {
            storeOutline(history, outline);
        }
        options.listener().stepsEvaluated(evaluator.stepsHanded(), report.eventsChecked());
        options.listener().evaluated(evaluator.evaluationCounts(), reused.keySet());
        return report;
    }

    /**
     * A re-check of the whole trace that needs no Python, if the history allows it: the script's text is the one whose
     * outline the history stores (so loading it would declare the same tables, predicates and globals), its tables are
     * served by the history and every predicate's stored results are reused, exactly as a re-check that loads the
     * script would reuse them. Empty when any of that does not hold: the script is then loaded in Python as before.
     */
    private static Optional<CheckReport> withoutPython(Path trace, Path script, String text, String settings,
                                                       Options options, StateHistory history) {
        Optional<ScriptOutline> outline = storedOutline(text, history);
        if (outline.isEmpty() || history.unservable(outline.get().tables()).isPresent()) {
            return Optional.empty();
        }
        Optional<PredicateResults> stored = history.predicateResults();
        if (stored.isEmpty()) {
            return Optional.empty();
        }
        List<ScriptEvaluator.GlobalName> globals = outline.get().globals().stream()
                .map(g -> new ScriptEvaluator.GlobalName(g.name(), g.what(), g.declared())).toList();
        Map<String, PredicateFingerprints.Fingerprint> fingerprints = PredicateFingerprints.of(text, script.toString(),
                globals, settings, Engine.DIGEST);
        Map<String, PredicateResults.Result> reused = new LinkedHashMap<>();
        for (String predicate : outline.get().predicates()) {
            PredicateResults.Result result = reusable(fingerprints.get(predicate),
                    stored.get().byPredicate().get(predicate));
            if (result == null) {
                return Optional.empty();
            }
            reused.put(predicate, result);
        }
        CheckReport report = merged(trace, script, stored.get().eventsChecked(), outline.get().predicates(), List.of(),
                Map.of(), reused);
        history.replaceViolations(report.violations());
        options.listener().evaluatedWithoutPython();
        options.listener().evaluated(Map.of(), reused.keySet());
        return Optional.of(report);
    }

    /** Whether {@code options} check the whole trace (no --from, --to or --limit), the only checks that store results. */
    private static boolean wholeTrace(Options options) {
        return options.fromPosition() == 0 && options.toPosition() == Long.MAX_VALUE && options.limit() == Long.MAX_VALUE;
    }

    /** The outline {@code history} stores of a script with exactly the text {@code text}, if it stores one. */
    private static Optional<ScriptOutline> storedOutline(String text, StateHistory history) {
        String digest = ScriptOutline.digestOf(text, Engine.DIGEST);
        return history.scriptOutline().filter(o -> o.digest().equals(digest));
    }

    /** The stored result if a predicate with this fingerprint may reuse it, else null. */
    private static PredicateResults.Result reusable(PredicateFingerprints.Fingerprint fingerprint,
                                                    PredicateResults.Result result) {
        return fingerprint != null && result != null && result.fingerprint().equals(fingerprint.code())
                && (!result.hasErrors() || result.lines().equals(fingerprint.lines())) ? result : null;
    }

    /** Stores the script's outline for the next re-check (see {@link #withoutPython}) unless it is null or stored. */
    private static void storeOutline(StateHistory history, ScriptOutline outline) {
        if (outline != null && !history.scriptOutline().equals(Optional.of(outline))) {
            history.storeScriptOutline(outline);
        }
    }

    /**
     * A re-check's report: the stored findings of the {@code reused} predicates and the {@code found} ones, in the order
     * one check of every predicate adds them (see {@link PredicateResults.Finding}), and each predicate's reads.
     */
    private static CheckReport merged(Path trace, Path script, long events, List<String> order,
                                      List<PredicateResults.Finding> found, Map<String, List<String>> evaluatedReads,
                                      Map<String, PredicateResults.Result> reused) {
        List<PredicateResults.Finding> all = new ArrayList<>(found);
        reused.values().forEach(result -> all.addAll(result.findings()));
        all.sort(Comparator.<PredicateResults.Finding>comparingLong(f -> f.violation().event().position())
                .thenComparingLong(PredicateResults.Finding::addedAt)
                .thenComparingInt(f -> order.indexOf(f.violation().predicate()))
                .thenComparingInt(PredicateResults.Finding::ordinal));
        Map<String, List<String>> reads = new LinkedHashMap<>(evaluatedReads);
        reused.forEach((predicate, result) -> reads.put(predicate, result.reads()));
        return new CheckReport(trace.toString(), script.toString(), events, true,
                all.stream().map(PredicateResults.Finding::violation).toList(), List.of(), 0, 0, reads);
    }

    /**
     * The derived values the {@code active} predicates can reach that a re-check may serve from the stored history:
     * fingerprint unchanged, provided the same holds for every derived value each one reaches (what a served one read
     * at each event must be known down to the tables). Their values are read back later ({@link #readServed}).
     */
    private static Set<String> servable(StateHistory history, Map<String, PredicateFingerprints.Fingerprint> fingerprints,
                                        List<String> active, Set<String> allDerived, boolean storedResults) {
        Map<String, String> storedDerived = storedResults ? history.derivedFingerprints() : Map.of();
        Set<String> names = new java.util.TreeSet<>();
        if (active.isEmpty() || storedDerived.isEmpty()) {
            return names;
        }
        for (String predicate : active) {
            PredicateFingerprints.Fingerprint fingerprint = fingerprints.get(predicate);
            names.addAll(fingerprint == null || fingerprint.readsBuiltins() ? allDerived : fingerprint.derived());
        }
        names.removeIf(derived -> fingerprints.get(derived) == null
                || !fingerprints.get(derived).code().equals(storedDerived.get(derived)));
        closeServed(names, fingerprints);
        return names;
    }

    /**
     * Reads back into the evaluator the stored {@code changes} of the served derived values, by name, into
     * {@code read}: for those that what runs can read, their values, for the others only what they read where that
     * changed (the predicates' reads, which the report shows, go through them; their values nothing evaluated sees).
     * Returns the first whose values cannot be read back (it must be evaluated instead), or empty.
     */
    private static Optional<String> readServed(ScriptEvaluator evaluator, Map<String, List<DerivedValues.Change>> changes,
                                               Map<String, List<DerivedValues.Change>> read, Options options) {
        read.clear();
        for (Map.Entry<String, List<DerivedValues.Change>> entry : changes.entrySet()) {
            Optional<String> why = evaluator.readBack(entry.getKey(), entry.getValue());
            if (why.isPresent()) {
                options.listener().notice("evaluating derived value " + entry.getKey() + " again: " + why.get());
                return Optional.of(entry.getKey());
            }
            read.put(entry.getKey(), entry.getValue());
        }
        return Optional.empty();
    }

    /**
     * {@code changes} as they reach Python when merged at the {@code handed} steps: each with the first handed step at
     * or after it, merged with the others it arrives with into one (the latest value, and the latest of what it read).
     * For a derived value that keeps one version, or whose values nothing evaluated reads, the merged change leaves
     * the state the separate ones leave.
     */
    private static List<DerivedValues.Change> merged(List<DerivedValues.Change> changes, long[] handed) {
        // One change per step handed that a change reaches: the latest value and the latest of what it read. The
        // changes come in position order, so the step each reaches is found by walking along the steps handed.
        List<DerivedValues.Change> out = new ArrayList<>();
        int index = 0;
        long previous = Long.MIN_VALUE;
        long at = -1;
        String value = null;
        List<String> reads = null;
        for (DerivedValues.Change change : changes) {
            if (change.position() < previous) {
                int found = java.util.Arrays.binarySearch(handed, change.position());
                index = found >= 0 ? found : -found - 1;
            }
            previous = change.position();
            while (index < handed.length && handed[index] < change.position()) {
                index++;
            }
            if (index == handed.length) {
                throw new IllegalStateException("a change of a merged derived value at " + change.position()
                        + " comes after the last step handed to Python, " + handed[handed.length - 1]);
            }
            if (at == handed[index]) {
                value = change.value() != null ? change.value() : value;
                reads = change.reads() != null ? change.reads() : reads;
            } else {
                if (at >= 0) {
                    out.add(new DerivedValues.Change(at, value, reads));
                }
                at = handed[index];
                value = change.value();
                reads = change.reads();
            }
        }
        if (at >= 0) {
            out.add(new DerivedValues.Change(at, value, reads));
        }
        return out;
    }

    /**
     * The served derived values whose changes may reach Python merged, at fewer steps, in a re-check whose evaluated
     * predicates and derived values read no table (only served values): those that nothing evaluated reads other
     * than through aux values (the callables of a predicate's decorator) and that keep one version, or whose values
     * nothing evaluated reads at all (only what they read is served). Their changes make nothing due: they matter only
     * where aux values are taken, and an eventually span's reported aux values are the ones taken after the step
     * before the one that ends it, where a predicate is due ({@link #handed}).
     */
    private static Set<String> coalescable(String text, List<ScriptEvaluator.GlobalName> globals, List<String> active,
                                           Set<String> running, Set<String> served, PredicateFingerprints.Reach reach,
                                           ScriptEvaluator evaluator) {
        List<String> roots = new ArrayList<>(active);
        roots.addAll(running);
        Set<String> due = PredicateFingerprints.reach(text, globals, roots, served, false).served();
        Set<String> candidates = new java.util.TreeSet<>(served);
        candidates.removeAll(due);
        Map<String, Integer> keeps = evaluator.keepVersions(candidates);
        Set<String> out = new java.util.TreeSet<>();
        for (String name : candidates) {
            if (!reach.served().contains(name) || keeps.get(name) == 1) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * The steps a re-check that reads only served values hands to Python when the changes of some of them are merged:
     * the {@code due} ones, sorted (where a value that is not merged changes, its readers are due there; or where a
     * probed predicate's outcome changes), the step with a change before each of those (after which the aux values of
     * a span that ends there are taken), and the first and last steps with a change (the first has every predicate
     * evaluated; after the last, open spans' aux values are taken for the end of the run). Every other step changes
     * only values that no due evaluation reads, or none whose change alters an outcome, and nothing is taken after it
     * that a later one does not take again.
     */
    private static long[] handed(Map<String, List<DerivedValues.Change>> changes, long[] due) {
        long[] all = positions(changes, name -> true);
        java.util.stream.LongStream.Builder handed = java.util.stream.LongStream.builder();
        for (long position : due) {
            handed.add(position);
            int at = java.util.Arrays.binarySearch(all, position);
            if (at > 0) {
                handed.add(all[at - 1]);
            }
        }
        if (all.length > 0) {
            handed.add(all[0]).add(all[all.length - 1]);
        }
        return handed.build().sorted().distinct().toArray();
    }

    /**
     * Where the outcome of an {@code active} predicate may change, in a re-check whose predicates read served derived
     * values alone (no table, no built-in, no mutable global, no derived value evaluated, none in the script whose
     * readers the checker cannot tell: see {@link ScriptEvaluator#unboundDerived}), each keeping one version:
     * such a predicate's outcome is a function of the values it reads. Each is probed once per combination of those
     * values that occurs ({@link ScriptEvaluator#probe}); then it is due only where the combination's outcome differs
     * from the one before (a violation begins or ends, or its witnesses change) and wherever it raised (each raise is a
     * finding), instead of wherever a value it reads changes. A predicate none of whose combinations recurs, or whose
     * probe fails, is due at every change. Null when some predicate does not qualify: its due
     * steps cannot be told from the served values alone. What else is due (the changes of values that only aux values
     * read and that cannot be merged) the caller adds.
     */
    private static OutcomeChanges outcomeChanges(String text, List<ScriptEvaluator.GlobalName> globals,
                                                 List<String> active, Set<String> served,
                                                 Map<String, List<DerivedValues.Change>> changes,
                                                 ScriptEvaluator evaluator) {
        // A derived value whose readers cannot be told is refreshed after each step handed, and may keep what it saw
        // (a helper's start times in a script with a mutable global): handing fewer steps would change it.
        if (active.isEmpty() || evaluator.unboundDerived() > 0) {
            return null;
        }
        java.util.stream.LongStream.Builder due = java.util.stream.LongStream.builder();
        Set<String> read = new java.util.TreeSet<>();
        for (String predicate : active) {
            PredicateFingerprints.Reach reach = PredicateFingerprints.reach(text, globals, List.of(predicate), served,
                    false);
            if (reach.builtins() || !reach.tables().isEmpty() || !reach.derived().isEmpty()
                    || !reach.mutables().isEmpty() || reach.served().isEmpty()) {
                return null;
            }
            List<String> names = List.copyOf(reach.served());
            if (evaluator.keepVersions(names).values().stream().anyMatch(keep -> keep != 1)) {
                return null;
            }
            read.addAll(names);
            // The texts each position sets, by the index of the value in names.
            java.util.TreeMap<Long, Map<Integer, String>> timeline = new java.util.TreeMap<>();
            for (int i = 0; i < names.size(); i++) {
                for (DerivedValues.Change change : changes.get(names.get(i))) {
                    if (change.value() != null) {
                        timeline.computeIfAbsent(change.position(), position -> new java.util.HashMap<>())
                                .put(i, change.value());
                    }
                }
            }
            String[] current = new String[names.size()];
            Map<List<String>, Integer> combinations = new java.util.LinkedHashMap<>();
            int[] combinationAt = new int[timeline.size()];
            int at = 0;
            for (Map<Integer, String> set : timeline.values()) {
                set.forEach((i, value) -> current[i] = value);
                combinationAt[at++] = combinations.computeIfAbsent(java.util.Arrays.asList(current.clone()),
                        combination -> combinations.size());
            }
            // Probing pays where combinations recur: then it evaluates the predicate less often than at every change,
            // besides handing Python fewer steps. Where none recurs (a value that only grows), it would evaluate as
            // often, and again at the steps handed.
            int[] outcomes = combinations.size() >= timeline.size() ? null
                    : evaluator.probe(predicate, names, List.copyOf(combinations.keySet())).orElse(null);
            at = 0;
            int previous = Integer.MIN_VALUE;
            for (long position : timeline.keySet()) {
                int outcome = outcomes == null ? -1 : outcomes[combinationAt[at]];
                if (outcome < 0 || outcome != previous) {
                    due.add(position);
                }
                previous = outcome;
                at++;
            }
        }
        return new OutcomeChanges(due.build().sorted().distinct().toArray(), read);
    }

    /** Where the outcome of the probed predicates may change, sorted, and the served values they read. */
    private record OutcomeChanges(long[] due, Set<String> read) {
    }

    /** The positions of the changes of the derived values {@code which} accepts, sorted, each once. */
    private static long[] positions(Map<String, List<DerivedValues.Change>> changes,
                                    java.util.function.Predicate<String> which) {
        // Sorted and distinct without boxing: a clock's changes are tens of thousands.
        int count = 0;
        for (Map.Entry<String, List<DerivedValues.Change>> entry : changes.entrySet()) {
            count += which.test(entry.getKey()) ? entry.getValue().size() : 0;
        }
        long[] all = new long[count];
        int at = 0;
        for (Map.Entry<String, List<DerivedValues.Change>> entry : changes.entrySet()) {
            if (which.test(entry.getKey())) {
                for (DerivedValues.Change change : entry.getValue()) {
                    all[at++] = change.position();
                }
            }
        }
        java.util.Arrays.sort(all);
        int distinct = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[distinct++] = all[i];
            }
        }
        return java.util.Arrays.copyOf(all, distinct);
    }

    /** Leaves out of {@code served} every derived value that reaches one not served, until none does. */
    private static void closeServed(Set<String> served, Map<String, PredicateFingerprints.Fingerprint> fingerprints) {
        boolean shrunk = true;
        while (shrunk) {
            shrunk = false;
            for (String derived : List.copyOf(served)) {
                if (!served.containsAll(fingerprints.get(derived).derived())) {
                    served.remove(derived);
                    shrunk = true;
                }
            }
        }
    }

    /**
     * What the re-check runs: the {@code active} predicates and the derived values they reach other than through the
     * {@code served} ones, grown until every declaration that touches a mutable global that something running reaches
     * runs too (a predicate is then evaluated instead of reused, a derived value evaluated instead of served), as in a
     * check of every predicate, where they all change that global. Updates {@code active}, {@code reused} and
     * {@code served}; returns what the running ones reach.
     */
    private static PredicateFingerprints.Reach runningClosure(String text, List<ScriptEvaluator.GlobalName> globals,
                                                              Map<String, PredicateFingerprints.Fingerprint> fingerprints,
                                                              List<String> predicates, List<String> active,
                                                              Map<String, PredicateResults.Result> reused,
                                                              Set<String> allDerived, Set<String> served) {
        Map<String, Set<String>> touchers = PredicateFingerprints.touchers(fingerprints);
        Set<String> running = new java.util.TreeSet<>();
        while (true) {
            List<String> roots = new ArrayList<>(active);
            roots.addAll(running);
            PredicateFingerprints.Reach reach = PredicateFingerprints.reach(text, globals, roots, served);
            boolean grew = false;
            if (reach.builtins()) {
                // Every derived value but the served ones is refreshed after each step.
                for (String derived : allDerived) {
                    if (!served.contains(derived)) {
                        grew |= running.add(derived);
                    }
                }
            }
            for (String global : reach.mutables()) {
                for (String toucher : touchers.getOrDefault(global, Set.of())) {
                    if (predicates.contains(toucher)) {
                        if (!active.contains(toucher)) {
                            active.add(toucher);
                            reused.remove(toucher);
                            grew = true;
                        }
                    } else {
                        grew |= served.remove(toucher);
                        grew |= running.add(toucher);
                    }
                }
            }
            if (!grew) {
                return reach;
            }
            closeServed(served, fingerprints);
        }
    }

    /**
     * What of the stored steps a re-check hands to Python: every change of a declared table projected onto its
     * declared columns (the stored history may have more, or tables the script no longer declares), without the
     * updates that alter only columns it no longer declares (a replay with the new declaration finds no change there),
     * and, when only some predicates are evaluated and none of them can read the event built-ins, only the steps that
     * change a table they can read (and the first step, at which every predicate is evaluated once).
     */
    private static final class StepFilter {
        private final Map<String, TableSchema> declared = new java.util.HashMap<>();
        private final Set<String> tables;
        private final Set<Long> positions;
        // The declared values of each row of a table whose stored changes hold more columns than it declares.
        private final Map<RowKey, Map<String, Object>> projected = new java.util.HashMap<>();
        private boolean first = true;

        private record RowKey(String table, NodeId node, long oid) {
        }

        /** {@code positions}: steps passed on whatever they change (where a served derived value changes). */
        StepFilter(List<TableSchema> schemas, Set<String> tables, Set<Long> positions) {
            schemas.forEach(schema -> declared.put(schema.name(), schema));
            this.tables = tables;
            this.positions = positions;
        }

        /** The step as the evaluation gets it, or null to pass over it. */
        StateStep apply(StateStep step) {
            boolean keepAnyway = first || tables == null || positions.contains(step.event().position());
            first = false;
            List<RowChange> changes = step.changes();
            boolean same = true;
            for (RowChange change : changes) {
                TableSchema schema = declared.get(change.table());
                if (schema == null || (tables != null && !tables.contains(change.table()))
                        || (change.kind() != RowChange.Kind.DELETE && change.values().size() != schema.columns().size())) {
                    same = false;
                    break;
                }
            }
            if (same) {
                return changes.isEmpty() && !keepAnyway ? null : step;
            }
            List<RowChange> kept = new ArrayList<>(changes.size());
            for (RowChange change : changes) {
                TableSchema schema = declared.get(change.table());
                if (schema == null || (tables != null && !tables.contains(change.table()))) {
                    continue;
                }
                if (change.kind() != RowChange.Kind.DELETE && change.values().size() != schema.columns().size()) {
                    Map<String, Object> values = new LinkedHashMap<>();
                    for (String column : schema.columns()) {
                        values.put(column, change.values().get(column));
                    }
                    // A change of undeclared columns alone is none: a replay with this declaration finds no change.
                    Map<String, Object> before = projected.put(new RowKey(change.table(), change.node(), change.oid()),
                            values);
                    if (change.kind() == RowChange.Kind.UPDATE && values.equals(before)) {
                        continue;
                    }
                    change = new RowChange(change.table(), change.kind(), change.node(), change.oid(), values);
                } else if (change.kind() == RowChange.Kind.DELETE) {
                    projected.remove(new RowKey(change.table(), change.node(), change.oid()));
                }
                kept.add(change);
            }
            if (kept.isEmpty() && !keepAnyway) {
                return null;
            }
            return new StateStep(step.event(), kept);
        }
    }

    /** A digest of the deja module, part of every predicate's fingerprint: another version may find otherwise. */
    private static final class Engine {
        static final String DIGEST = digest();

        private static String digest() {
            try (var in = Checker.class.getResourceAsStream("/dev/deja/check/deja.py")) {
                return PredicateFingerprints.sha256(in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot read the deja module: " + e.getMessage(), e);
            }
        }
    }

    /** Counts what is written through it, so that the check can tell whether the script printed while loading. */
    private static final class CountingOutput extends OutputStream {
        private final OutputStream target;
        private long count;

        CountingOutput(OutputStream target) {
            this.target = target;
        }

        long count() {
            return count;
        }

        @Override
        public void write(int b) throws IOException {
            count++;
            target.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            count += length;
            target.write(bytes, offset, length);
        }

        @Override
        public void flush() throws IOException {
            target.flush();
        }
    }

    private static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stop() {
            super(null, null, false, false);
        }
    }

    /** The evaluation of one check: steps in, findings out. */
    private static final class Run {
        private final ScriptEvaluator evaluator;
        private final Options options;
        private final StateHistory history;
        // Null: every step goes to the evaluation as it is.
        private final StepFilter filter;
        private final List<PredicateResults.Finding> violations = new ArrayList<>();
        // Open eventually-spans by the serial number of their witness's finding, with their order among the findings
        // of the event that opened them.
        private final Map<Long, PredicateResults.Finding> openSpans = new LinkedHashMap<>();
        private boolean timedOut;
        long events;
        private long nextProgress;

        Run(ScriptEvaluator evaluator, Options options, StateHistory history, StepFilter filter) {
            this.evaluator = evaluator;
            this.options = options;
            this.history = history;
            this.filter = filter;
        }

        /**
         * Evaluates a batch of steps in order, with one call into Python for the steps up to each one with findings,
         * and stops the check at the first step past {@code --to} or once {@code --limit} findings are in.
         */
        void steps(List<StateStep> batch) {
            int end = 0;
            while (end < batch.size() && batch.get(end).event().position() <= options.toPosition()) {
                end++;
            }
            List<StateStep> evaluated = batch.subList(0, end);
            if (filter != null) {
                List<StateStep> kept = new ArrayList<>(end);
                for (StateStep step : evaluated) {
                    StateStep passed = filter.apply(step);
                    if (passed != null) {
                        kept.add(passed);
                    }
                }
                for (StateStep step : evaluated) {
                    counted(step);
                }
                evaluated = kept;
            }
            int size = evaluated.size();
            int from = 0;
            while (from < size) {
                ScriptEvaluator.Outcome outcome = evaluator.evaluate(evaluated, from);
                int last = Math.min(outcome.index(), size - 1);
                if (filter == null) {
                    for (int i = from; i <= last; i++) {
                        counted(evaluated.get(i));
                    }
                }
                if (outcome.index() < size) {
                    found(evaluated.get(outcome.index()), outcome.findings());
                    if (violations.size() >= options.limit()) {
                        throw new Stop();
                    }
                }
                from = outcome.index() + 1;
            }
            if (end < batch.size()) {
                throw new Stop();
            }
        }

        private void counted(StateStep step) {
            long position = step.event().position();
            events++;
            if (position >= nextProgress) {
                options.progress().accept(position);
                nextProgress = position + 1000;
            }
        }

        private void found(StateStep step, List<ScriptEvaluator.Finding> findings) {
            long position = step.event().position();
            int ordinal = 0;
            for (ScriptEvaluator.Finding finding : findings) {
                int at = ordinal++;
                switch (finding.status()) {
                    case TURNED_FALSE -> {
                        Violation violation = new Violation(finding.predicate(), finding.kind(), Violation.Status.VIOLATED,
                                step.event(), Optional.empty(), evaluator.aux(finding.predicate(), finding.serial()),
                                Map.of(), "", finding.witness(), false, evaluator.reads(finding.predicate()));
                        if (finding.kind() == Violation.Kind.EVENTUALLY) {
                            openSpans.put(finding.serial(), new PredicateResults.Finding(violation, Long.MAX_VALUE, at));
                        } else {
                            add(violation, position, at);
                        }
                    }
                    case TURNED_TRUE -> {
                        PredicateResults.Finding opened = openSpans.remove(finding.serial());
                        if (opened != null) {
                            Violation open = opened.violation();
                            // Its aux values at the latest event at which it was still false, the one before this.
                            add(new Violation(open.predicate(), open.kind(), open.status(), open.event(),
                                    Optional.of(position), open.aux(),
                                    evaluator.latestAux(open.predicate(), finding.serial()), open.message(),
                                    open.witness(), false, open.reads()), position, at);
                        }
                    }
                    case ERROR -> add(new Violation(finding.predicate(), finding.kind(), Violation.Status.ERROR,
                            step.event(), Optional.empty(), Map.of(), finding.message()), position, at);
                    case TIMEOUT -> {
                        timedOut = true;
                        add(new Violation(finding.predicate(), finding.kind(), Violation.Status.TIMEOUT,
                                step.event(), Optional.empty(), Map.of(), finding.message()), position, at);
                    }
                }
            }
        }

        private void add(Violation violation, long addedAt, int ordinal) {
            boolean inRange = violation.event().position() >= options.fromPosition()
                    || violation.endPosition().map(end -> end >= options.fromPosition()).orElse(false);
            if (inRange && violations.size() < options.limit()) {
                violations.add(new PredicateResults.Finding(violation, addedAt, ordinal));
            }
        }

        /** Spans still open at the end of what was checked are reported without an end. */
        private void closeOpenSpans() {
            openSpans.forEach((serial, opened) -> {
                Violation open = opened.violation();
                add(new Violation(open.predicate(), open.kind(), open.status(), open.event(), Optional.empty(),
                        open.aux(), evaluator.latestAux(open.predicate(), serial), open.message(), open.witness(),
                        false, open.reads()), Long.MAX_VALUE, opened.ordinal());
            });
            openSpans.clear();
        }

        CheckReport report(Path trace, Path script, boolean fromHistory, boolean record) {
            closeOpenSpans();
            List<Violation> sorted = new ArrayList<>(violations.stream().map(PredicateResults.Finding::violation).toList());
            sorted.sort(Comparator.comparingLong(v -> v.event().position()));
            if (record) {
                sorted.forEach(history::recordViolation);
            }
            return new CheckReport(trace.toString(), script.toString(), events, fromHistory, sorted, List.of(), 0, 0,
                    evaluator.reads());
        }

        /**
         * The report of a re-check that reused {@code reused}: their stored findings and these, in the order one check
         * of every predicate adds them (see {@link PredicateResults.Finding}), and each predicate's reads.
         */
        CheckReport merged(Path trace, Path script, Map<String, PredicateResults.Result> reused) {
            closeOpenSpans();
            return Checker.merged(trace, script, events, evaluator.predicateNames(), violations, evaluator.reads(), reused);
        }

        /**
         * Stores each predicate's findings with its fingerprint for the next re-check; not after a check with a timeout,
         * whose findings depend on the machine's speed.
         */
        void storeResults(Map<String, PredicateFingerprints.Fingerprint> fingerprints,
                          Map<String, PredicateResults.Result> reused, CheckReport report) {
            if (timedOut) {
                return;
            }
            Map<String, PredicateResults.Result> out = new LinkedHashMap<>();
            for (String predicate : evaluator.predicateNames()) {
                PredicateResults.Result kept = reused.get(predicate);
                if (kept != null) {
                    out.put(predicate, kept);
                    continue;
                }
                PredicateFingerprints.Fingerprint fingerprint = fingerprints.get(predicate);
                if (fingerprint == null) {
                    continue;
                }
                List<PredicateResults.Finding> findings = violations.stream()
                        .filter(f -> f.violation().predicate().equals(predicate)).toList();
                out.put(predicate, new PredicateResults.Result(fingerprint.code(), fingerprint.lines(),
                        report.reads().getOrDefault(predicate, List.of()), findings));
            }
            history.storePredicateResults(new PredicateResults(events, out));
        }

        /**
         * Stores the values of the derived values evaluated over the whole history ({@code evaluated}, null for every
         * one) with their fingerprints, keeps the stored ones named in {@code kept}, forgets the others; not after a
         * check with a timeout.
         */
        void storeDerived(Map<String, PredicateFingerprints.Fingerprint> fingerprints, Set<String> evaluated,
                          Set<String> kept) {
            if (timedOut) {
                return;
            }
            Map<String, DerivedValues> fresh = new LinkedHashMap<>();
            for (ScriptEvaluator.RecordedDerived recorded : evaluator.recordedDerived()) {
                PredicateFingerprints.Fingerprint fingerprint = fingerprints.get(recorded.name());
                // A value that could not be read back exactly (such as one holding rows) is not stored at all.
                if (recorded.unstorable() == null && fingerprint != null && !kept.contains(recorded.name())
                        && (evaluated == null || evaluated.contains(recorded.name()))
                        && evaluator.unstorable(recorded.changes()).isEmpty()) {
                    fresh.put(recorded.name(), new DerivedValues(fingerprint.code(), recorded.changes()));
                }
            }
            history.storeDerivedValues(fresh, kept);
        }
    }
}
