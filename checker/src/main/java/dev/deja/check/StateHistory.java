package dev.deja.check;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The checker's durable store for one trace ({@code TRACE/check/}): every declared table's rows with their
 * history, the checked events and the violations of the last check, so that "state of table T as of event N"
 * is one SQL query and a script whose table declarations did not change can be re-checked without replaying.
 *
 * <p>Writing: {@link #beginCheck} with the script's schemas, then {@link #append} for every step in order,
 * {@link #recordViolation} for each finding, and {@link #finishCheck} once the replay reached the end of
 * the trace (a check that stopped early leaves no reusable history). Confined to one thread.
 */
public interface StateHistory extends AutoCloseable {
    /** What {@link #unservable} says when no complete history is stored at all. */
    String NO_HISTORY = "no complete history is stored";

    /** Starts recording a new check with these table declarations, discarding earlier history and violations. */
    void beginCheck(List<TableSchema> schemas);

    /** Records one step; steps arrive in increasing position order. */
    void append(StateStep step);

    /** Records one finding of the current check. */
    void recordViolation(Violation violation);

    /**
     * Replaces the stored violations with {@code violations}: those of the latest check, whether it replayed or
     * read this history, as classified by its thresholds, so that {@code deja sql} and the viewer show what
     * {@code deja check} printed. A history that keeps no violations (such as one only for appends) ignores them.
     */
    default void replaceViolations(List<Violation> violations) {
    }

    /** Marks the history complete: it covers every event of the trace. */
    void finishCheck();

    /** Whether a complete history exists that was extracted with exactly these schemas. */
    boolean hasCompleteHistory(List<TableSchema> schemas);

    /**
     * Streams the stored steps, in position order, from {@code fromPosition} on; only valid when
     * {@link #hasCompleteHistory} holds for the schemas being checked. Returns how many steps were read.
     */
    long replayHistory(long fromPosition, Consumer<StateStep> consumer);

    /**
     * Like {@link #replayHistory(long, Consumer)}, each step with only its changes of {@code tables} (null: all); a
     * store may leave the other changes undecoded.
     */
    default long replayHistory(long fromPosition, java.util.Set<String> tables, Consumer<StateStep> consumer) {
        return replayHistory(fromPosition, tables == null ? consumer : step -> consumer.accept(only(step, tables)));
    }

    /**
     * Streams the first stored step, those at {@code positions} and those that change one of the tables
     * {@code changing}, in position order, each with only its changes of {@code tables} (null: all), what a re-check
     * needs when only the changes of stored derived values and of a few tables matter to it; the same validity rule as
     * {@link #replayHistory}. A store may read and decode less than the whole history for it, and may give other steps
     * too, near those (the caller passes over what it does not need). Returns how many steps were given.
     */
    default long replayHistoryAt(java.util.Set<Long> positions, java.util.Set<String> changing,
                                 java.util.Set<String> tables, Consumer<StateStep> consumer) {
        long[] given = {0};
        boolean[] first = {true};
        replayHistory(0, step -> {
            if (first[0] || positions.contains(step.event().position())
                    || step.changes().stream().anyMatch(change -> changing.contains(change.table()))) {
                consumer.accept(tables == null ? step : only(step, tables));
                given[0]++;
            }
            first[0] = false;
        });
        return given[0];
    }

    private static StateStep only(StateStep step, java.util.Set<String> tables) {
        return new StateStep(step.event(), step.changes().stream().filter(change -> tables.contains(change.table())).toList());
    }

    /**
     * Why the stored history cannot serve a check declaring {@code schemas} without a replay, or empty if it can: it is
     * complete and stores every declared table with the same class and at least its columns (a table whose
     * declaration lost columns or is gone is served from the stored one). {@link #replayHistory} then gives the stored
     * tables' changes, which the caller projects onto the declared ones.
     */
    default java.util.Optional<String> unservable(List<TableSchema> schemas) {
        return hasCompleteHistory(schemas) ? java.util.Optional.empty()
                : java.util.Optional.of(NO_HISTORY);
    }

    /** The per-predicate results of the latest complete check of this history, if stored. */
    default Optional<PredicateResults> predicateResults() {
        return Optional.empty();
    }

    /** Replaces the stored per-predicate results; a history that keeps none ignores them. */
    default void storePredicateResults(PredicateResults results) {
    }

    /**
     * The fingerprints of the derived values whose values the latest complete check of this history stored (see
     * {@link DerivedValues}), by name; empty if none.
     */
    default java.util.Map<String, String> derivedFingerprints() {
        return java.util.Map.of();
    }

    /**
     * The stored changes of the derived value {@code name} (see {@link #derivedFingerprints}), in position order;
     * unmodifiable.
     */
    default List<DerivedValues.Change> derivedChanges(String name) {
        return List.of();
    }

    /**
     * Replaces the stored derived values: those in {@code fresh} are stored anew, those named in {@code kept} stay as
     * stored, every other one is forgotten. A history that keeps none ignores them.
     */
    default void storeDerivedValues(java.util.Map<String, DerivedValues> fresh, java.util.Set<String> kept) {
    }

    /**
     * The outline of the script that the latest complete check of this history loaded (see {@link ScriptOutline}), if
     * stored.
     */
    default Optional<ScriptOutline> scriptOutline() {
        return Optional.empty();
    }

    /** Replaces the stored script outline; a history that keeps none ignores it. */
    default void storeScriptOutline(ScriptOutline outline) {
    }

    /** The violations stored by the latest check (see {@link #replaceViolations}), if any. */
    Optional<List<Violation>> lastViolations();

    @Override
    void close();
}
