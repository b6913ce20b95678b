package dev.deja.explore.internal;

import dev.deja.check.CheckedEvent;
import dev.deja.check.StateStep;
import dev.deja.check.Violation;
import dev.deja.check.LiveEvaluation;
import dev.deja.sim.SimulatedStep;
import dev.deja.trace.TraceEvent;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Evaluates a predicate script after every step of every path, through the checker's own extraction and
 * incremental evaluation, in one Python context for all the paths of a worker: {@link #newRun} resets the tables
 * and predicates between paths instead of loading the script again. Steps are handed to Python in batches; a
 * violation found in a batch names its own step, so a path that ran on past it is cut back to it.
 *
 * <p>Confined to one worker thread.
 */
final class LiveMonitor implements AutoCloseable {
    static final int BATCH = 64;

    private final LiveEvaluation evaluator;
    private final List<StateStep> batch = new ArrayList<>(BATCH);
    private final long[] batchSteps = new long[BATCH];
    private final int[] batchAnswers = new int[BATCH];
    private final TraceEvent[] batchEntries = new TraceEvent[BATCH];
    private final Map<String, Long> openSpans = new LinkedHashMap<>();
    private final Set<String> errored = new LinkedHashSet<>();
    private final List<Hit> errors = new ArrayList<>();
    private long checked;
    private String watched;
    private long watchFrom;
    private long liveAt = -1;
    private final Map<String, Long> lastTurnedTrue = new LinkedHashMap<>();

    /**
     * A predicate that failed at a step.
     *
     * @param predicate the predicate
     * @param kind      always or eventually
     * @param status    violated, or error/timeout when it raised or ran too long
     * @param step      the path's step (execution order) at which it failed
     * @param answers   the answers the path had given when that step's handler returned
     * @param entry     the entry that began that step's handler (node, incarnation, seq, Lamport clock)
     * @param message   the error, for an error or timeout
     * @param aux       the predicate's aux values at that step
     */
    record Hit(String predicate, Violation.Kind kind, Violation.Status status, long step, int answers, TraceEvent entry,
               String message, Map<String, Object> aux) {
    }

    LiveMonitor(String text, String fileName, ClassLoader loader, Duration timeout, OutputStream scriptOutput) {
        this.evaluator = new LiveEvaluation(text, fileName, loader, timeout, scriptOutput);
    }

    List<String> predicates() {
        return evaluator.predicates();
    }

    Violation.Kind kindOf(String predicate) {
        return evaluator.kindOf(predicate);
    }

    void newRun() {
        evaluator.newRun();
        batch.clear();
        openSpans.clear();
        errored.clear();
        errors.clear();
        checked = 0;
        watched = null;
        liveAt = -1;
        lastTurnedTrue.clear();
    }

    /**
     * Adds the state of every node at the end of a prefix that was run without evaluation, as one step per node
     * (in the order of {@code lastEntries}, each with its node's last entry as the event): what a walk from a prefix
     * evaluates instead of every step of the prefix. Predicates that read history (a derived value's versions, the
     * event) see it from here on. Flushes as batches fill; safety findings are ignored (see {@link #watch}).
     */
    void addSnapshot(Map<dev.deja.node.NodeId, Object> liveNodes, List<SimulatedStep> lastEntries) {
        for (SimulatedStep last : lastEntries) {
            Object node = liveNodes.get(last.node());
            if (node == null) {
                continue;
            }
            if (add(new SimulatedStep(last.step(), last.event(), true, last.entry(), node), 0)) {
                flush();
            }
        }
    }

    /**
     * Watches {@code predicate} on this run from step {@code fromStep} (0-based) on: {@link #liveAt} then gives the
     * first step at or after it, among the steps evaluated so far, after which the predicate held.
     */
    void watch(String predicate, long fromStep) {
        // While watching, an @always predicate turning false does not end the run: only the watched one matters.
        watched = predicate;
        watchFrom = fromStep;
        liveAt = -1;
    }

    /** The first watched step after which the watched predicate held, or -1 (so far). */
    long liveAt() {
        return liveAt;
    }

    /** Notes that the watched predicate's value did not change over batch steps [from, to] (inclusive). */
    private void unchanged(int from, int to) {
        if (watched == null || liveAt >= 0 || from > to || openSpans.containsKey(watched)) {
            return;
        }
        for (int i = from; i <= to; i++) {
            if (batchSteps[i] >= watchFrom) {
                liveAt = batchSteps[i];
                return;
            }
        }
    }

    /** Adds a recorded node's step; true when the batch is full and should be flushed. */
    boolean add(SimulatedStep step, int answers) {
        TraceEvent entry = step.entry();
        int index = batch.size();
        batchSteps[index] = step.step();
        batchAnswers[index] = answers;
        batchEntries[index] = entry;
        batch.add(new StateStep(CheckedEvent.of(entry, checked++), evaluator.extract(entry.node(), step.nodeObject())));
        return batch.size() == BATCH;
    }

    /** Evaluates the steps added since the last flush; the first safety violation among them, if any. */
    Optional<Hit> flush() {
        int from = 0;
        try {
            while (from < batch.size()) {
                LiveEvaluation.Outcome outcome = evaluator.evaluate(batch, from);
                if (outcome.index() >= batch.size()) {
                    unchanged(from, batch.size() - 1);
                    return Optional.empty();
                }
                int at = outcome.index();
                unchanged(from, at - 1);
                for (LiveEvaluation.Finding finding : outcome.findings()) {
                    switch (finding.status()) {
                        case TURNED_FALSE -> {
                            if (finding.kind() == Violation.Kind.ALWAYS) {
                                if (watched != null) {
                                    continue;
                                }
                                return Optional.of(hit(finding, Violation.Status.VIOLATED, at, ""));
                            }
                            openSpans.put(finding.predicate(), batchSteps[at]);
                        }
                        case TURNED_TRUE -> {
                            openSpans.remove(finding.predicate());
                            lastTurnedTrue.put(finding.predicate(), batchSteps[at] + 1);
                        }
                        case ERROR, TIMEOUT -> {
                            if (errored.add(finding.predicate())) {
                                errors.add(hit(finding, finding.status() == LiveEvaluation.Status.ERROR
                                        ? Violation.Status.ERROR : Violation.Status.TIMEOUT, at, finding.message()));
                            }
                        }
                    }
                }
                unchanged(at, at);
                from = at + 1;
            }
            return Optional.empty();
        } finally {
            batch.clear();
        }
    }

    private Hit hit(LiveEvaluation.Finding finding, Violation.Status status, int at, String message) {
        Map<String, Object> aux = status == Violation.Status.VIOLATED ? evaluator.aux(finding.predicate()) : Map.of();
        return new Hit(finding.predicate(), finding.kind(), status, batchSteps[at], batchAnswers[at], batchEntries[at],
                message, aux);
    }

    /** The eventually predicates still false at the end of the path, with the step each turned false at. */
    Map<String, Long> openAtEnd() {
        return Map.copyOf(openSpans);
    }

    /**
     * The eventually predicates that held at the end of the path, each with the depth (in steps) from which it held to
     * the end: 0 when it was never false, else one more than the 0-based step at which its last false span closed.
     */
    Map<String, Long> liveFromAtEnd() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (String predicate : evaluator.predicates()) {
            if (evaluator.kindOf(predicate) == Violation.Kind.EVENTUALLY && !openSpans.containsKey(predicate)) {
                out.put(predicate, lastTurnedTrue.getOrDefault(predicate, 0L));
            }
        }
        return out;
    }

    /** The predicates that raised or timed out on this path (the first time each did). */
    List<Hit> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void close() {
        evaluator.close();
    }
}
