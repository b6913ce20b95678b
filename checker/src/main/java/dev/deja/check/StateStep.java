package dev.deja.check;

import java.util.List;
import java.util.Objects;

/**
 * What one replayed event did to the declared state: the event and the row changes it caused (often none).
 * A live check produces these from the replayed nodes; a re-check reads them back from stored history; the
 * evaluator cannot tell the two apart, which is what makes both paths give the same report.
 */
public record StateStep(CheckedEvent event, List<RowChange> changes) {
    public StateStep {
        Objects.requireNonNull(event, "event");
        changes = List.copyOf(changes);
    }
}
