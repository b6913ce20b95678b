package dev.deja.check.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.h2.util.ScriptReader;

/**
 * The result of one read-only query against a trace's check database, as text cells.
 *
 * @param columns column labels, lower case
 * @param rows    cells; a SQL NULL is {@code null}
 * @param kinds   what each column holds, so that machine-readable output can keep numbers numbers
 */
public record QueryResult(List<String> columns, List<List<String>> rows, List<Kind> kinds) {
    /** What a column holds. */
    public enum Kind { INTEGER, DECIMAL, BOOLEAN, TEXT }

    public QueryResult {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
        kinds = List.copyOf(kinds);
        if (kinds.size() != columns.size()) {
            throw new IllegalArgumentException(kinds.size() + " column kinds for " + columns.size() + " columns");
        }
    }

    /** A result whose columns all hold text. */
    public QueryResult(List<String> columns, List<List<String>> rows) {
        this(columns, rows, java.util.Collections.nCopies(columns.size(), Kind.TEXT));
    }

    /** The rows with each cell as its column's kind: {@link Long} or {@link java.math.BigDecimal}, Boolean, String. */
    public List<List<Object>> typedRows() {
        List<List<Object>> typed = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            List<Object> cells = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                cells.add(typed(row.get(i), kinds.get(i)));
            }
            typed.add(java.util.Collections.unmodifiableList(cells));
        }
        return typed;
    }

    private static Object typed(String cell, Kind kind) {
        if (cell == null) {
            return null;
        }
        try {
            return switch (kind) {
                case INTEGER -> new java.math.BigInteger(cell).bitLength() < 64 ? (Object) Long.parseLong(cell)
                        : new java.math.BigInteger(cell);
                case DECIMAL -> new java.math.BigDecimal(cell);
                case BOOLEAN -> Boolean.parseBoolean(cell);
                case TEXT -> cell;
            };
        } catch (NumberFormatException e) {
            return cell; // e.g. a DOUBLE's "Infinity" or "NaN": kept as the database wrote it
        }
    }

    private static Kind kindOf(int sqlType) {
        return switch (sqlType) {
            case java.sql.Types.TINYINT, java.sql.Types.SMALLINT, java.sql.Types.INTEGER, java.sql.Types.BIGINT -> Kind.INTEGER;
            case java.sql.Types.DECIMAL, java.sql.Types.NUMERIC, java.sql.Types.REAL, java.sql.Types.FLOAT,
                 java.sql.Types.DOUBLE -> Kind.DECIMAL;
            case java.sql.Types.BOOLEAN, java.sql.Types.BIT -> Kind.BOOLEAN;
            default -> Kind.TEXT;
        };
    }

    /**
     * Runs {@code sql}, exactly one statement, against the check database of {@code trace}, opened read-only, as a
     * database user who may only read Deja's tables ({@link H2StateHistory#readerConnection}): what is not a query
     * is refused by the database's privileges, not by looking at the text. The first query after a check builds the tables for queries
     * first ({@link H2StateHistory#prepareForQueries}).
     */
    public static QueryResult query(java.nio.file.Path trace, String sql) {
        return query(trace, sql, notice -> { });
    }

    /** Like {@link #query(java.nio.file.Path, String)}, telling {@code notice} when the tables are built first. */
    public static QueryResult query(java.nio.file.Path trace, String sql, Consumer<String> notice) {
        int statements = statementCount(sql);
        if (statements != 1) {
            throw new CheckDatabaseException("the query holds " + statements + " statements; give exactly one");
        }
        try (H2StateHistory ready = readyForQueries(trace, notice); Connection connection = ready.readerConnection()) {
            try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
                ResultSetMetaData meta = result.getMetaData();
                List<String> columns = new ArrayList<>();
                List<Kind> kinds = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    columns.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
                    kinds.add(kindOf(meta.getColumnType(i)));
                }
                List<List<String>> rows = new ArrayList<>();
                while (result.next()) {
                    List<String> row = new ArrayList<>(columns.size());
                    for (int i = 1; i <= columns.size(); i++) {
                        row.add(result.getString(i));
                    }
                    rows.add(java.util.Collections.unmodifiableList(row));
                }
                return new QueryResult(columns, rows, kinds);
            } catch (SQLException e) {
                throw new CheckDatabaseException(explain(e, connection), e);
            }
        } catch (SQLException e) {
            throw H2StateHistory.translate(e, H2StateHistory.databaseFile(trace));
        }
    }

    /** The history opened read-only, its tables for queries built first if they are not yet. */
    static H2StateHistory readyForQueries(java.nio.file.Path trace, Consumer<String> notice) {
        H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY);
        boolean needed;
        try {
            needed = history.needsQueryTables();
        } catch (RuntimeException e) {
            history.close();
            throw e;
        }
        if (!needed) {
            return history;
        }
        history.close();
        H2StateHistory.prepareForQueries(trace, notice);
        return H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY);
    }

    /** The statements in {@code sql}, split the way H2 splits a script (quotes, comments and $$ blocks kept whole). */
    static int statementCount(String sql) {
        int count = 0;
        try (ScriptReader reader = new ScriptReader(new java.io.StringReader(sql))) {
            reader.setSkipRemarks(true);
            for (String statement; (statement = reader.readStatement()) != null; ) {
                if (!statement.isBlank()) {
                    count++;
                }
            }
        }
        return count;
    }

    private static String explain(SQLException e, Connection connection) {
        String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        if (e.getErrorCode() == org.h2.api.ErrorCode.METHOD_ONLY_ALLOWED_FOR_QUERY) {
            // H2 refuses to run it at all, before any privilege is looked at.
            return "refused: queries may only read the check database's tables (not a query: only SELECT, WITH,"
                    + " VALUES, TABLE, SHOW and EXPLAIN run)";
        }
        if (e.getErrorCode() == org.h2.api.ErrorCode.ADMIN_RIGHTS_REQUIRED
                || e.getErrorCode() == org.h2.api.ErrorCode.NOT_ENOUGH_RIGHTS_FOR_1
                || e.getErrorCode() == org.h2.api.ErrorCode.DATABASE_IS_READ_ONLY) {
            return "refused: queries may only read the check database's tables (" + first.replaceFirst(";? ?SQL statement:$", "")
                    + ")";
        }
        if (e.getErrorCode() == org.h2.api.ErrorCode.TABLE_OR_VIEW_NOT_FOUND_1
                || e.getErrorCode() == org.h2.api.ErrorCode.TABLE_OR_VIEW_NOT_FOUND_WITH_CANDIDATES_2
                || e.getErrorCode() == org.h2.api.ErrorCode.TABLE_OR_VIEW_NOT_FOUND_DATABASE_EMPTY_1) {
            List<String> tables = new ArrayList<>();
            try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(
                    "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_SCHEMA) = 'PUBLIC' ORDER BY TABLE_NAME")) {
                while (rows.next()) {
                    tables.add(rows.getString(1).toLowerCase(Locale.ROOT));
                }
            } catch (SQLException ignored) {
                // the first message is still worth showing
            }
            return first + "; the tables are: " + String.join(", ", tables);
        }
        return first;
    }
}
