package dev.deja.check;

import dev.deja.check.internal.ScriptEvaluator;
import dev.deja.check.internal.StateExtractor;
import dev.deja.node.NodeId;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A predicate script evaluated against live nodes, run after run, in one Python context: the checker's own
 * extraction (rows of the declared tables, diffed with the node's previous rows) and incremental evaluation, for
 * callers that drive nodes themselves, such as the explorer. {@link #newRun} starts the next run (tables emptied,
 * predicates as before the first step) without loading the script again.
 *
 * <p>Not thread-safe: one thread extracts and evaluates; a caller with several threads makes one per thread.
 */
public final class LiveEvaluation implements AutoCloseable {
    private final ScriptEvaluator evaluator;
    private final StateExtractor extractor;

    /** What happened to a predicate at a step. */
    public enum Status { TURNED_FALSE, TURNED_TRUE, ERROR, TIMEOUT }

    /** One predicate's change at a step. */
    public record Finding(String predicate, Violation.Kind kind, Status status, String message) {
    }

    /**
     * The first step of a batch with findings, from the index evaluation started at, and its findings; or the batch's
     * size and none.
     */
    public record Outcome(int index, List<Finding> findings) {
    }

    /**
     * Loads {@code text} (named {@code fileName} in messages) and resolves its tables' classes with {@code loader}.
     *
     * @throws ScriptException          if the script does not load
     * @throws IllegalArgumentException if a table's class or column cannot be found
     */
    public LiveEvaluation(String text, String fileName, ClassLoader loader, Duration predicateTimeout,
                          OutputStream scriptOutput) {
        this.evaluator = new ScriptEvaluator(text, fileName, predicateTimeout, scriptOutput);
        try {
            this.extractor = new StateExtractor(evaluator.schemas(), loader);
        } catch (IllegalArgumentException e) {
            evaluator.close();
            throw new IllegalArgumentException(fileName + ": " + e.getMessage(), e);
        }
    }

    /** The predicates, in declaration order. */
    public List<String> predicates() {
        return evaluator.predicateNames();
    }

    public Violation.Kind kindOf(String predicate) {
        return evaluator.kindOf(predicate);
    }

    /** Starts another run: no rows, no history, every predicate due for evaluation. */
    public void newRun() {
        evaluator.newRun();
        extractor.newRun();
    }

    /** The row changes of {@code node} since its last extraction in this run ({@code root} null: the node is down). */
    public List<RowChange> extract(NodeId node, Object root) {
        return extractor.extract(node, root);
    }

    /**
     * Applies and evaluates {@code steps} from index {@code from} until a step has findings (see the checker's
     * incremental evaluation); going on from the step after it in the same list hands Python nothing again.
     */
    public Outcome evaluate(List<StateStep> steps, int from) {
        ScriptEvaluator.Outcome outcome = evaluator.evaluate(steps, from);
        List<Finding> findings = new ArrayList<>(outcome.findings().size());
        for (ScriptEvaluator.Finding finding : outcome.findings()) {
            findings.add(new Finding(finding.predicate(), finding.kind(), Status.valueOf(finding.status().name()),
                    finding.message()));
        }
        return new Outcome(outcome.index(), findings);
    }

    /** The aux values of {@code predicate} now. */
    public Map<String, Object> aux(String predicate) {
        return evaluator.aux(predicate);
    }

    @Override
    public void close() {
        evaluator.close();
    }
}
