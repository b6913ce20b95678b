package dev.deja.check;

import dev.deja.node.NodeId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a trace's stored check answers, for tools that show it (the viewer): the tables the check declared, a
 * node's rows as of an event, and the latest check's findings. How the history stores them stays behind this
 * interface. Confined to one thread.
 */
public interface CheckedHistory extends AutoCloseable {
    /** One row of a declared table: its object's oid and each declared column's value as text (null if unset). */
    record Row(long oid, List<String> values) {
        public Row {
            Objects.requireNonNull(values, "values");
            values = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(values));
        }
    }

    /** The tables the stored check declared, in declaration order; empty when no check of this build is stored. */
    Optional<List<TableSchema>> tables();

    /**
     * {@code node}'s rows of {@code table} as they were right after the event at {@code position}, by oid; the
     * values follow {@link TableSchema#columns()}.
     */
    List<Row> rowsAt(TableSchema table, NodeId node, long position);

    /** The findings of the latest check, as it printed them, if any check is stored. */
    Optional<List<Violation>> lastViolations();

    @Override
    void close();
}
