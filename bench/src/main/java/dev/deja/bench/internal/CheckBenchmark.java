package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.BenchPlan;
import dev.deja.bench.Summary;
import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.Violation;
import dev.deja.check.store.H2StateHistory;
import dev.deja.examples.Example;
import dev.deja.examples.Examples;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Checking cost, for every registered example that ships a predicate script ({@link Example#script()}): on the
 * example's simulated trace, rounds of a plain replay, a full check ({@code deja check --fresh}: replay, state
 * extraction, Python predicates, H2 history), and a re-check from that history ({@code deja check} with the
 * tables unchanged), interleaved, each side starting once the JVM is quiet ({@link Interleaved.Start#QUIET}).
 * Where {@code bench/baseline/<name>_check.py} exists, each round also runs the baseline a user would write without
 * Deja: a replay in which every node dumps its state as JSON after every event, then CPython checking the same
 * predicates over the dumps. Then as many rounds again of the plain replay
 * and the full check alone ({@code later_rounds}): the same ratio once the JIT has compiled what the example needs,
 * as in a long-running {@code deja check --watch}. Each round also re-checks from the history with a copy of the
 * script whose first predicate was edited ({@link OneShotChecks#editOnePredicate}), and then {@link OneShotChecks}
 * times the one-shot commands, each in a new JVM and through the warm engine ({@code one_shot_check}).
 */
final class CheckBenchmark {
    private static final String REPLAY = "replay";
    private static final String CHECK = "check";
    private static final String RECHECK = "recheck";
    private static final String EDITED = "recheck_edited";
    private static final String DUMP = "dump";
    private static final String PYTHON = "python";

    private final Workspace workspace;

    CheckBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    /** Fills {@code check_slowdown}, {@code recheck_from_history_speedup} and {@code json_dump_baseline}. */
    void run(ObjectNode results) throws Exception {
        oneShot = new OneShotChecks(workspace);
        oneShots = Results.object();
        try {
            runExamples(results);
        } finally {
            if (oneShot.available()) {
                oneShot.stop();
            }
        }
        results.set("one_shot_check", oneShots);
    }

    private OneShotChecks oneShot;
    private ObjectNode oneShots;

    private void runExamples(ObjectNode results) throws Exception {
        Map<String, ObjectNode> slowdowns = new LinkedHashMap<>();
        Map<String, ObjectNode> rechecks = new LinkedHashMap<>();
        ObjectNode baselines = Results.object();
        List<String> skipped = new ArrayList<>();
        Set<String> chosen = workspace.settings().examples();
        for (Example example : Examples.all()) {
            if (!chosen.isEmpty() && !chosen.contains(example.name())) {
                continue;
            }
            if (example.script().isEmpty()) {
                skipped.add(example.name() + " (names no predicate script)");
                continue;
            }
            Path script = workspace.settings().home().resolve(example.script().get());
            if (!Files.isRegularFile(script)) {
                skipped.add(example.name() + " (no " + script + ")");
                continue;
            }
            Optional<Path> baseline = JsonDumpBaseline.script(workspace.settings().home(), example);
            try {
                measure(example, script, baseline, slowdowns, rechecks, baselines);
            } catch (Exception e) {
                // One example's failure (a diverging replay, a script error) must not cost the other figures.
                workspace.progress().say("check %s: failed, left out: %s", example.name(), e);
                skipped.add(example.name() + " (failed: " + e.getMessage() + ")");
            }
        }
        if (slowdowns.isEmpty()) {
            throw new IllegalStateException("no example could be checked; " + String.join("; ", skipped));
        }
        results.set("check_slowdown", Results.headline(slowdowns, true, "checked replay time / plain replay time",
                "at most 3x (the paper: 4-20x)", skipped));
        results.set("recheck_from_history_speedup", Results.headline(rechecks, false,
                "full check time / re-check-from-history time", null, skipped));
        results.set("json_dump_baseline", baselines);
    }

    private void measure(Example example, Path script, Optional<Path> baseline, Map<String, ObjectNode> slowdowns,
                         Map<String, ObjectNode> rechecks, ObjectNode baselines) throws Exception {
        BenchPlan plan = workspace.plan();
        Progress progress = workspace.progress();
        Workspace.ExampleTrace made = workspace.exampleTrace(example);
        Path trace = made.trace();
        Path dumps = workspace.path("check/" + example.name() + "-dumps");
        long[] events = {0};
        List<Violation> findings = new ArrayList<>();
        List<String> pythonFindings = new ArrayList<>();
        Map<String, Interleaved.Side> sides = new LinkedHashMap<>();
        sides.put(REPLAY, () -> {
            ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults());
            ReplayBenchmark.requireClean(result, trace);
            return result.elapsed().toNanos() / 1e9;
        });
        sides.put(CHECK, () -> {
            long start = System.nanoTime();
            CheckReport report = check(trace, script, false);
            double seconds = (System.nanoTime() - start) / 1e9;
            events[0] = report.eventsChecked();
            findings.clear();
            findings.addAll(report.violations());
            return seconds;
        });
        sides.put(RECHECK, () -> {
            long start = System.nanoTime();
            check(trace, script, true);
            return (System.nanoTime() - start) / 1e9;
        });
        // The same re-check after an edit of one predicate: what the edit-check loop costs.
        Path edited = workspace.path("check/" + example.name() + "-edited.py");
        Files.createDirectories(edited.getParent());
        OneShotChecks.Edit edit = OneShotChecks.editOnePredicate(Files.readString(script));
        Files.writeString(edited, edit.script());
        sides.put(EDITED, () -> {
            long start = System.nanoTime();
            check(trace, edited, true);
            return (System.nanoTime() - start) / 1e9;
        });
        if (baseline.isPresent() && JsonDumpBaseline.python().isPresent()) {
            sides.put(DUMP, () -> {
                Workspace.delete(dumps);
                long start = System.nanoTime();
                JsonDumpBaseline.dump(trace, dumps);
                return (System.nanoTime() - start) / 1e9;
            });
            sides.put(PYTHON, () -> {
                long start = System.nanoTime();
                List<String> found = JsonDumpBaseline.check(baseline.get(), dumps);
                double seconds = (System.nanoTime() - start) / 1e9;
                pythonFindings.clear();
                pythonFindings.addAll(found);
                return seconds;
            });
        }
        progress.say("check %s: %d entries; %s", example.name(), made.result().entries(),
                String.join(", ", sides.keySet()) + " interleaved");
        // Each side starts once the JVM is quiet: right after a full check, the JIT's background compilation took a
        // core from the re-check measured next, which a user who edits between checks does not meet.
        Map<String, List<Double>> samples = Interleaved.run("check " + example.name() + " (seconds)", plan.rounds(),
                true, Interleaved.Start.QUIET, sides, progress);

        // The JIT is still warming up over the rounds above (each example brings its own script and node classes),
        // so the check's cost in a long-running process (deja check --watch, the warm engine) is measured again once as
        // many checks of this example have run: replay, full check and the two re-checks (a re-check's own code, run
        // only as often as the rounds, warms up later than the full check's, which replays thousands of events).
        Map<String, Interleaved.Side> later = new LinkedHashMap<>();
        later.put(REPLAY, sides.get(REPLAY));
        later.put(CHECK, sides.get(CHECK));
        later.put(RECHECK, sides.get(RECHECK));
        later.put(EDITED, sides.get(EDITED));
        Map<String, List<Double>> laterSamples = Interleaved.run("check " + example.name()
                + " (seconds, later rounds)", plan.rounds(), false, later, progress);

        ObjectNode slowdown = Results.summary(Summary.ofRatios(samples.get(CHECK), samples.get(REPLAY)));
        describeTrace(slowdown, made, events[0]);
        slowdown.set("replay_seconds", Results.summary(Summary.of(samples.get(REPLAY))));
        slowdown.set("check_seconds", Results.summary(Summary.of(samples.get(CHECK))));
        ObjectNode laterSlowdown = Results.summary(Summary.ofRatios(laterSamples.get(CHECK), laterSamples.get(REPLAY)));
        laterSlowdown.put("checks_before", 1 + plan.rounds());
        laterSlowdown.set("replay_seconds", Results.summary(Summary.of(laterSamples.get(REPLAY))));
        laterSlowdown.set("check_seconds", Results.summary(Summary.of(laterSamples.get(CHECK))));
        slowdown.set("later_rounds", laterSlowdown);
        slowdown.put("check_microseconds_per_event", Results.round(
                Summary.of(samples.get(CHECK)).median() * 1e6 / Math.max(1, events[0])));
        slowdown.put("findings", findings.size());
        slowdowns.put(example.name(), slowdown);

        ObjectNode recheck = Results.summary(Summary.ofRatios(samples.get(CHECK), samples.get(RECHECK)));
        recheck.set("recheck_seconds", Results.summary(Summary.of(samples.get(RECHECK))));
        recheck.put("events_checked", events[0]);
        recheck.put("edited_predicate", edit.predicate());
        recheck.put("each_side_starts", "when the JVM is quiet");
        recheck.set("edited_recheck_seconds", Results.summary(Summary.of(samples.get(EDITED))));
        recheck.set("full_check_over_edited_recheck", Results.summary(Summary.ofRatios(samples.get(CHECK),
                samples.get(EDITED))));
        ObjectNode laterRecheck = Results.summary(Summary.ofRatios(laterSamples.get(CHECK), laterSamples.get(RECHECK)));
        laterRecheck.put("checks_before", 1 + plan.rounds());
        laterRecheck.set("recheck_seconds", Results.summary(Summary.of(laterSamples.get(RECHECK))));
        laterRecheck.set("edited_recheck_seconds", Results.summary(Summary.of(laterSamples.get(EDITED))));
        laterRecheck.set("full_check_over_edited_recheck", Results.summary(Summary.ofRatios(laterSamples.get(CHECK),
                laterSamples.get(EDITED))));
        recheck.set("later_rounds", laterRecheck);
        rechecks.put(example.name(), recheck);

        if (oneShot.available()) {
            ObjectNode processes = oneShot.measure(example.name(), trace, script, edited, plan.oneShotRounds());
            processes.put("events_checked", events[0]);
            processes.put("edited_predicate", edit.predicate());
            oneShots.set(example.name(), processes);
        } else {
            oneShots.put(example.name(), "not measured: no launcher at the installation (a test of the benchmark)");
        }

        if (samples.containsKey(PYTHON)) {
            baselines.set(example.name(), baseline(trace, dumps, samples, findings, pythonFindings));
        } else {
            baselines.put(example.name(), baseline.isEmpty() ? "not measured: no bench/baseline/" + example.name()
                    + "_check.py" : "not measured: python3 not found on the PATH");
        }
    }

    private static CheckReport check(Path trace, Path script, boolean fromHistory) {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            CheckReport report = Checker.check(trace, script, Checker.Options.defaults().withReuseHistory(fromHistory)
                    .withScriptOutput(OutputStream.nullOutputStream()), history);
            if (report.fromHistory() != fromHistory) {
                throw new IllegalStateException("the check of " + trace + (fromHistory
                        ? " replayed although a complete history with the same tables was stored"
                        : " read the stored history although it was told to replay"));
            }
            return report;
        }
    }

    private ObjectNode baseline(Path trace, Path dumps, Map<String, List<Double>> samples, List<Violation> findings,
                                List<String> pythonFindings) {
        List<Double> baselineTotal = new ArrayList<>();
        List<Double> dumpOverhead = new ArrayList<>();
        for (int i = 0; i < samples.get(CHECK).size(); i++) {
            double overhead = samples.get(DUMP).get(i) - samples.get(REPLAY).get(i);
            dumpOverhead.add(overhead);
            baselineTotal.add(overhead + samples.get(PYTHON).get(i));
        }
        ObjectNode node = Results.summary(Summary.ofRatios(baselineTotal, samples.get(CHECK)));
        node.put("unit", "(time the nodes spend dumping + CPython check time) / deja check time");
        node.set("dump_seconds", Results.summary(Summary.of(dumpOverhead)));
        node.set("python_seconds", Results.summary(Summary.of(samples.get(PYTHON))));
        long dumpBytes = Workspace.fileBytes(dumps);
        long traceBytes = Workspace.diskBytes(trace.resolve(Trace.NODES));
        long historyBytes = Workspace.diskBytes(H2StateHistory.databaseFile(trace));
        node.put("dump_bytes", dumpBytes);
        node.put("trace_bytes", traceBytes);
        node.put("history_bytes", historyBytes);
        node.put("disk_ratio", Results.round((double) dumpBytes / (traceBytes + historyBytes)));
        node.put("disk_unit", "JSON dumps / (trace + check history) on disk");
        Set<String> deja = JsonDumpBaseline.dejaFindings(findings);
        Set<String> python = new TreeSet<>(pythonFindings);
        node.put("deja_findings", deja.size());
        node.put("python_findings", python.size());
        node.put("same_findings", deja.equals(python));
        node.put("note", "the dumps carry Deja's merged event order, which a real dump would lack");
        return node;
    }

    private static void describeTrace(ObjectNode node, Workspace.ExampleTrace made, long events) {
        node.put("trace_entries", made.result().entries());
        node.put("events_checked", events);
        node.put("trace", "simulated " + made.example().name() + ", " + made.example().defaultNodes()
                + " nodes, seed " + Workspace.SEED + ", " + Math.round(made.dropProbability() * 100)
                + "% message loss, " + made.result().steps() + " steps"
                + new TreeMap<>(made.example().longRunArguments()).entrySet().stream()
                        .map(argument -> ", " + argument.getKey() + "=" + argument.getValue())
                        .collect(Collectors.joining()));
    }
}
