package dev.deja.check;

import dev.deja.check.internal.BackgroundAppender;
import dev.deja.check.internal.PythonEngine;
import dev.deja.check.internal.ScriptEvaluator;
import dev.deja.check.internal.StateExtractor;
import dev.deja.check.internal.StepPipeline;
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
     */
    public record Options(long fromPosition, long toPosition, long limit, Duration predicateTimeout,
                          boolean reuseHistory, ClassLoader classLoader, OutputStream scriptOutput,
                          LongConsumer progress) {
        public Options {
            Objects.requireNonNull(predicateTimeout, "predicateTimeout");
            Objects.requireNonNull(classLoader, "classLoader");
            Objects.requireNonNull(scriptOutput, "scriptOutput");
            Objects.requireNonNull(progress, "progress");
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
                    loader != null ? loader : Checker.class.getClassLoader(), System.err, position -> { });
        }

        public Options withRange(long from, long to) {
            return new Options(from, to, limit, predicateTimeout, reuseHistory, classLoader, scriptOutput, progress);
        }

        public Options withLimit(long value) {
            return new Options(fromPosition, toPosition, value, predicateTimeout, reuseHistory, classLoader, scriptOutput, progress);
        }

        public Options withPredicateTimeout(Duration value) {
            return new Options(fromPosition, toPosition, limit, value, reuseHistory, classLoader, scriptOutput, progress);
        }

        public Options withReuseHistory(boolean value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, value, classLoader, scriptOutput, progress);
        }

        public Options withClassLoader(ClassLoader value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, value, scriptOutput, progress);
        }

        public Options withScriptOutput(OutputStream value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, classLoader, value, progress);
        }

        public Options withProgress(LongConsumer value) {
            return new Options(fromPosition, toPosition, limit, predicateTimeout, reuseHistory, classLoader, scriptOutput, value);
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
     * Prepares this process's Python engine and one context, which the next check takes over (what a long-lived
     * process, such as the warm engine of {@code deja daemon}, does before its first check).
     */
    public static void warmUp() {
        String script = "from deja import always\n\n@always\ndef warm():\n    return True\n";
        try (ScriptEvaluator ignored = new ScriptEvaluator(script, "<warm-up>", Duration.ofSeconds(60),
                OutputStream.nullOutputStream())) {
            // Closing gives the context back for the next check.
        }
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
        PythonEngine.warnIfInterpreted(System.err);
        try (ScriptEvaluator evaluator = new ScriptEvaluator(text, script.toString(), options.predicateTimeout(),
                options.scriptOutput())) {
            Run run = new Run(evaluator, options, history);
            List<TableSchema> schemas = evaluator.schemas();
            evaluator.nodeDeaths(NodeDeaths.of(Trace.open(trace)));
            if (options.reuseHistory() && history.hasCompleteHistory(schemas)) {
                boolean stopped = false;
                try {
                    StepPipeline.runBatches("deja-check-history", sink -> history.replayHistory(0, sink), run::steps);
                } catch (Stop stop) {
                    // --to or --limit reached
                    stopped = true;
                }
                CheckReport report = run.report(trace, script, true, false);
                if (!stopped && options.toPosition() == Long.MAX_VALUE) {
                    // The stored violations are the latest check's, whether it replayed or not.
                    history.replaceViolations(report.violations());
                }
                return report;
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
            }
            return report;
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
        private final List<Violation> violations = new ArrayList<>();
        // Open eventually-spans by the serial number of their witness's finding.
        private final Map<Long, Violation> openSpans = new LinkedHashMap<>();
        private long events;
        private long nextProgress;

        Run(ScriptEvaluator evaluator, Options options, StateHistory history) {
            this.evaluator = evaluator;
            this.options = options;
            this.history = history;
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
            int from = 0;
            while (from < end) {
                ScriptEvaluator.Outcome outcome = evaluator.evaluate(evaluated, from);
                int last = Math.min(outcome.index(), end - 1);
                for (int i = from; i <= last; i++) {
                    counted(evaluated.get(i));
                }
                if (outcome.index() < end) {
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
            for (ScriptEvaluator.Finding finding : findings) {
                switch (finding.status()) {
                    case TURNED_FALSE -> {
                        Violation violation = new Violation(finding.predicate(), finding.kind(), Violation.Status.VIOLATED,
                                step.event(), Optional.empty(), evaluator.aux(finding.predicate(), finding.serial()),
                                Map.of(), "", finding.witness(), false, evaluator.reads(finding.predicate()));
                        if (finding.kind() == Violation.Kind.EVENTUALLY) {
                            openSpans.put(finding.serial(), violation);
                        } else {
                            add(violation);
                        }
                    }
                    case TURNED_TRUE -> {
                        Violation open = openSpans.remove(finding.serial());
                        if (open != null) {
                            // Its aux values at the latest event at which it was still false, the one before this.
                            add(new Violation(open.predicate(), open.kind(), open.status(), open.event(),
                                    Optional.of(position), open.aux(),
                                    evaluator.latestAux(open.predicate(), finding.serial()), open.message(),
                                    open.witness(), false, open.reads()));
                        }
                    }
                    case ERROR -> add(new Violation(finding.predicate(), finding.kind(), Violation.Status.ERROR,
                            step.event(), Optional.empty(), Map.of(), finding.message()));
                    case TIMEOUT -> add(new Violation(finding.predicate(), finding.kind(), Violation.Status.TIMEOUT,
                            step.event(), Optional.empty(), Map.of(), finding.message()));
                }
            }
        }

        private void add(Violation violation) {
            boolean inRange = violation.event().position() >= options.fromPosition()
                    || violation.endPosition().map(end -> end >= options.fromPosition()).orElse(false);
            if (inRange && violations.size() < options.limit()) {
                violations.add(violation);
            }
        }

        CheckReport report(Path trace, Path script, boolean fromHistory, boolean record) {
            // Spans still open at the end of what was checked are reported without an end.
            openSpans.forEach((serial, open) -> add(new Violation(open.predicate(), open.kind(), open.status(),
                    open.event(), Optional.empty(), open.aux(), evaluator.latestAux(open.predicate(), serial),
                    open.message(), open.witness(), false, open.reads())));
            openSpans.clear();
            List<Violation> sorted = new ArrayList<>(violations);
            sorted.sort(Comparator.comparingLong(v -> v.event().position()));
            if (record) {
                sorted.forEach(history::recordViolation);
            }
            return new CheckReport(trace.toString(), script.toString(), events, fromHistory, sorted, List.of(), 0, 0,
                    evaluator.reads());
        }
    }
}
