package dev.deja.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A {@link StateHistory} kept in memory: lives as long as the object, so it serves a {@code --watch} session
 * (re-checks without replay while the tables stay the same) and tests. Confined to one thread.
 */
public final class InMemoryStateHistory implements StateHistory {
    private List<TableSchema> schemas = List.of();
    private final List<StateStep> steps = new ArrayList<>();
    private final List<Violation> pendingViolations = new ArrayList<>();
    private List<Violation> finishedViolations;
    private boolean complete;

    @Override
    public void beginCheck(List<TableSchema> schemas) {
        this.schemas = List.copyOf(schemas);
        steps.clear();
        pendingViolations.clear();
        finishedViolations = null;
        complete = false;
    }

    @Override
    public void append(StateStep step) {
        if (!steps.isEmpty() && steps.getLast().event().position() >= step.event().position()) {
            throw new IllegalArgumentException("steps must arrive in increasing position order: "
                    + step.event().position() + " after " + steps.getLast().event().position());
        }
        steps.add(step);
    }

    @Override
    public void recordViolation(Violation violation) {
        pendingViolations.add(violation);
    }

    @Override
    public void replaceViolations(List<Violation> violations) {
        finishedViolations = List.copyOf(violations);
    }

    @Override
    public void finishCheck() {
        complete = true;
        finishedViolations = List.copyOf(pendingViolations);
    }

    @Override
    public boolean hasCompleteHistory(List<TableSchema> schemas) {
        return complete && this.schemas.equals(schemas);
    }

    @Override
    public long replayHistory(long fromPosition, Consumer<StateStep> consumer) {
        if (!complete) {
            throw new IllegalStateException("no complete history to replay");
        }
        long count = 0;
        for (StateStep step : steps) {
            if (step.event().position() >= fromPosition) {
                consumer.accept(step);
                count++;
            }
        }
        return count;
    }

    @Override
    public Optional<List<Violation>> lastViolations() {
        return Optional.ofNullable(finishedViolations);
    }

    @Override
    public void close() {
    }
}
