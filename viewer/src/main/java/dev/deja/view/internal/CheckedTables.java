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
        try (CheckedHistory history = reopen()) {
            for (TableSchema schema : schemas) {
                List<ObjectTree> rows = rows(history, schema, node, position);
                tables.add(new ObjectTree(schema.name(), "table", rows.size() + (rows.size() == 1 ? " row" : " rows"),
                        rows));
            }
        }
        return new ObjectTree(node.value(), "tables", "tables", tables);
    }

    /**
     * Every node's rows of every table right after the event at {@code position}: table, node, row by oid, so a
     * predicate over all nodes (a global one) can be seen at once.
     */
    ObjectTree allRowsAt(List<NodeId> nodes, long position) {
        List<ObjectTree> tables = new ArrayList<>();
        try (CheckedHistory history = reopen()) {
            for (TableSchema schema : schemas) {
                List<ObjectTree> byNode = new ArrayList<>();
                int count = 0;
                for (NodeId node : nodes) {
                    List<ObjectTree> rows = rows(history, schema, node, position);
                    if (!rows.isEmpty()) {
                        byNode.add(new ObjectTree(node.value(), "node", rows.size() + (rows.size() == 1 ? " row" : " rows"),
                                rows));
                        count += rows.size();
                    }
                }
                tables.add(new ObjectTree(schema.name(), "table", count + (count == 1 ? " row" : " rows") + " on "
                        + byNode.size() + (byNode.size() == 1 ? " node" : " nodes"), byNode));
            }
        }
        return new ObjectTree("all nodes", "tables", "tables", tables);
    }

    /** The stored check again: opened for each question, so that a new check may replace it meanwhile. */
    private CheckedHistory reopen() {
        return H2StateHistory.openForQueries(trace).orElseThrow(() ->
                new IllegalStateException("the check database of " + trace + " is gone"));
    }

    /** {@code node}'s rows of {@code schema} after the event at {@code position}, a subtree per row by oid. */
    private static List<ObjectTree> rows(CheckedHistory history, TableSchema schema, NodeId node, long position) {
        List<ObjectTree> rows = new ArrayList<>();
        for (CheckedHistory.Row row : history.rowsAt(schema, node, position)) {
            List<ObjectTree> columns = new ArrayList<>();
            for (int i = 0; i < schema.columns().size(); i++) {
                String value = row.values().get(i);
                columns.add(ObjectTree.leaf(schema.columns().get(i), "", value == null ? "None" : value));
            }
            rows.add(new ObjectTree("oid " + row.oid(), schema.name(), schema.name(), columns));
        }
        return rows;
    }
}
