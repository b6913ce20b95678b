package dev.deja.view.internal;

import dev.deja.check.CheckedHistory;
import dev.deja.check.TableSchema;
import dev.deja.check.store.H2StateHistory;
import dev.deja.node.NodeId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A node's rows in the declared tables as of an event, asked of the history {@code deja check} stored with the
 * trace ({@link CheckedHistory}, read-only; opened for each question, so that a check of the same trace can
 * replace it while the window is open). Rendered as an {@link ObjectTree} (table, row by oid, column) so the
 * window shows and diffs them like the node's state.
 */
final class CheckedTables {
    private final Path trace;
    private final List<TableSchema> schemas;

    private CheckedTables(Path trace, List<TableSchema> schemas) {
        this.trace = trace;
        this.schemas = schemas;
    }

    /** The tables of {@code trace}'s stored check, or empty when it was never checked. */
    static Optional<CheckedTables> open(Path trace) {
        Optional<CheckedHistory> opened = H2StateHistory.openForQueries(trace);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        try (CheckedHistory history = opened.get()) {
            return history.tables().map(schemas -> new CheckedTables(trace, schemas));
        }
    }

    List<TableSchema> schemas() {
        return schemas;
    }

    /** {@code node}'s rows of every table as they were right after the event at {@code position}. */
    ObjectTree rowsAt(NodeId node, long position) {
        List<ObjectTree> tables = new ArrayList<>();
        try (CheckedHistory history = H2StateHistory.openForQueries(trace).orElseThrow(() ->
                new IllegalStateException("the check database of " + trace + " is gone"))) {
            for (TableSchema schema : schemas) {
                List<ObjectTree> rows = new ArrayList<>();
                for (CheckedHistory.Row row : history.rowsAt(schema, node, position)) {
                    List<ObjectTree> columns = new ArrayList<>();
                    for (int i = 0; i < schema.columns().size(); i++) {
                        String value = row.values().get(i);
                        columns.add(ObjectTree.leaf(schema.columns().get(i), "", value == null ? "None" : value));
                    }
                    rows.add(new ObjectTree("oid " + row.oid(), schema.name(), schema.name(), columns));
                }
                tables.add(new ObjectTree(schema.name(), "table", rows.size() + (rows.size() == 1 ? " row" : " rows"),
                        rows));
            }
        }
        return new ObjectTree(node.value(), "tables", "tables", tables);
    }

    /**
     * Every node's rows of every table right after the event at {@code position}, one line a row ({@code n3 · oid 1
     * = slot=0, accepted_round=4, …}) under its table, so that a predicate over all nodes (a global one) can be
     * read at one glance, the nodes' rows side by side.
     */
    ObjectTree allRowsAt(List<NodeId> nodes, long position) {
        List<ObjectTree> tables = new ArrayList<>();
        try (CheckedHistory history = H2StateHistory.openForQueries(trace).orElseThrow(() ->
                new IllegalStateException("the check database of " + trace + " is gone"))) {
            for (TableSchema schema : schemas) {
                List<ObjectTree> rows = new ArrayList<>();
                int withRows = 0;
                for (NodeId node : nodes) {
                    List<CheckedHistory.Row> found = history.rowsAt(schema, node, position);
                    withRows += found.isEmpty() ? 0 : 1;
                    for (CheckedHistory.Row row : found) {
                        StringBuilder line = new StringBuilder();
                        for (int i = 0; i < schema.columns().size(); i++) {
                            String value = row.values().get(i);
                            line.append(i == 0 ? "" : ", ").append(schema.columns().get(i)).append('=')
                                    .append(value == null ? "None" : value);
                        }
                        rows.add(ObjectTree.leaf(node.value() + " · oid " + row.oid(), schema.name(), line.toString()));
                    }
                }
                tables.add(new ObjectTree(schema.name(), "table", rows.size() + (rows.size() == 1 ? " row" : " rows")
                        + " on " + withRows + (withRows == 1 ? " node" : " nodes"), rows));
            }
        }
        return new ObjectTree("all nodes", "tables", "tables", tables);
    }
}
