package dev.deja.view.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.check.TableSchema;
import dev.deja.check.store.H2StateHistory;
import dev.deja.check.store.QueryResult;
import dev.deja.node.NodeId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A node's rows in the declared tables as of an event, read from the history {@code deja check} stored in
 * {@code TRACE/check/} (read-only, through the same queries as {@code deja sql}). Rendered as an
 * {@link ObjectTree} (table, row by oid, column) so the window shows and diffs them like the node's state.
 */
final class CheckedTables {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private final Path trace;
    private final List<TableSchema> schemas;

    private CheckedTables(Path trace, List<TableSchema> schemas) {
        this.trace = trace;
        this.schemas = schemas;
    }

    /** The tables of {@code trace}'s check database, or empty when it was never checked. */
    static Optional<CheckedTables> open(Path trace) {
        if (!Files.isRegularFile(H2StateHistory.databaseFile(trace))) {
            return Optional.empty();
        }
        QueryResult meta = QueryResult.query(trace, "SELECT meta_value FROM deja_meta WHERE meta_key = 'schemas'");
        if (meta.rows().isEmpty()) {
            return Optional.empty();
        }
        try {
            List<TableSchema> schemas = JSON.readValue(meta.rows().getFirst().getFirst(), new TypeReference<>() { });
            return Optional.of(new CheckedTables(trace, List.copyOf(schemas)));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(H2StateHistory.databaseFile(trace) + ": unreadable table declarations: "
                    + e.getMessage(), e);
        }
    }

    List<TableSchema> schemas() {
        return schemas;
    }

    /** {@code node}'s rows of every table as they were right after the event at {@code position}. */
    ObjectTree rowsAt(NodeId node, long position) {
        List<ObjectTree> tables = new ArrayList<>();
        for (TableSchema schema : schemas) {
            StringBuilder sql = new StringBuilder("SELECT oid");
            for (String column : schema.columns()) {
                sql.append(", ").append(quote(column));
            }
            // Node ids are letters, digits, '-', '_' and '.', so they are safe inside quotes.
            sql.append(" FROM ").append(quote(schema.name() + "_history")).append(" WHERE node = '").append(node.value())
                    .append("' AND valid_from <= ").append(position).append(" AND (valid_to IS NULL OR valid_to > ")
                    .append(position).append(") ORDER BY oid");
            QueryResult result = QueryResult.query(trace, sql.toString());
            List<ObjectTree> rows = new ArrayList<>();
            for (List<String> row : result.rows()) {
                List<ObjectTree> columns = new ArrayList<>();
                for (int i = 0; i < schema.columns().size(); i++) {
                    String value = row.get(i + 1);
                    columns.add(ObjectTree.leaf(schema.columns().get(i), "", value == null ? "None" : value));
                }
                rows.add(new ObjectTree("oid " + row.getFirst(), schema.name(), schema.name(), columns));
            }
            tables.add(new ObjectTree(schema.name(), "table", rows.size() + (rows.size() == 1 ? " row" : " rows"), rows));
        }
        return new ObjectTree(node.value(), "tables", "tables", tables);
    }

    /**
     * Every node's rows of every table right after the event at {@code position}: table, node, row by oid, so a
     * predicate over all nodes (a global one) can be seen at once.
     */
    ObjectTree allRowsAt(long position) {
        List<ObjectTree> tables = new ArrayList<>();
        for (TableSchema schema : schemas) {
            StringBuilder sql = new StringBuilder("SELECT node, oid");
            for (String column : schema.columns()) {
                sql.append(", ").append(quote(column));
            }
            sql.append(" FROM ").append(quote(schema.name() + "_history")).append(" WHERE valid_from <= ").append(position)
                    .append(" AND (valid_to IS NULL OR valid_to > ").append(position).append(") ORDER BY node, oid");
            QueryResult result = QueryResult.query(trace, sql.toString());
            java.util.Map<String, List<ObjectTree>> byNode = new java.util.TreeMap<>(NaturalOrder.INSTANCE);
            for (List<String> row : result.rows()) {
                List<ObjectTree> columns = new ArrayList<>();
                for (int i = 0; i < schema.columns().size(); i++) {
                    String value = row.get(i + 2);
                    columns.add(ObjectTree.leaf(schema.columns().get(i), "", value == null ? "None" : value));
                }
                byNode.computeIfAbsent(row.get(0), n -> new ArrayList<>())
                        .add(new ObjectTree("oid " + row.get(1), schema.name(), schema.name(), columns));
            }
            List<ObjectTree> nodes = new ArrayList<>();
            byNode.forEach((node, rows) -> nodes.add(new ObjectTree(node, "node",
                    rows.size() + (rows.size() == 1 ? " row" : " rows"), rows)));
            int count = result.rows().size();
            tables.add(new ObjectTree(schema.name(), "table", count + (count == 1 ? " row" : " rows") + " on "
                    + nodes.size() + (nodes.size() == 1 ? " node" : " nodes"), nodes));
        }
        return new ObjectTree("all nodes", "tables", "tables", tables);
    }

    private static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
