package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.QueryResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Read-only SQL over the state history that {@code deja check} stored for a trace. */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = {"Run a read-only SQL query against the check database of a trace (written by 'deja check'):",
                "  T              the rows of declared table T at the end of the trace",
                "  T_history      every version of every row: node, oid, valid_from, valid_to (exclusive; NULL = still current), columns",
                "  events         position, node, incarnation, seq, lamport, at_millis, type, message_type, from_node",
                "  violations     position, predicate, kind, status, node, lamport, end_position, aux, message",
                "The first query after a check builds T, T_history and events from the stored steps (once; it says so).",
                "A check stores only the steps, so that re-checking stays quick."},
        footer = {"", "Examples:",
                "  deja sql traces/t \"SELECT * FROM Agent\"",
                "  deja sql traces/t \"SELECT node, accepted_round FROM Agent_history WHERE valid_from <= 300 AND (valid_to IS NULL OR valid_to > 300)\"",
                "  deja sql traces/t \"SELECT predicate, COUNT(*) FROM violations GROUP BY predicate\" --format csv"})
public final class SqlCommand implements Callable<Integer> {
    /** Output formats. */
    enum Format { table, csv, json }

    @Parameters(index = "0", paramLabel = "TRACE", description = "The trace directory (checked at least once).")
    Path trace;

    @Parameters(index = "1", paramLabel = "QUERY", description = "One SELECT (or WITH, VALUES, SHOW, EXPLAIN) statement.")
    String query;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, csv or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @CommandLine.Mixin
    NoDaemonOption noDaemon;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        QueryResult result;
        try {
            result = QueryResult.query(trace, query, notice -> {
                err.println(notice);
                err.flush();
            });
        } catch (CheckDatabaseException e) {
            err.println("deja sql: " + e.getMessage());
            return 2;
        }
        switch (format) {
            case table -> printTable(result);
            case csv -> printCsv(result);
            case json -> printJson(result);
        }
        return 0;
    }

    private static void printTable(QueryResult result) {
        int[] widths = new int[result.columns().size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = result.columns().get(i).length();
            for (List<String> row : result.rows()) {
                widths[i] = Math.max(widths[i], cell(row.get(i)).length());
            }
        }
        System.out.println(line(result.columns(), widths));
        for (List<String> row : result.rows()) {
            List<String> cells = new ArrayList<>();
            row.forEach(value -> cells.add(cell(value)));
            System.out.println(line(cells, widths));
        }
        System.out.println("(" + result.rows().size() + (result.rows().size() == 1 ? " row)" : " rows)"));
    }

    private static String cell(String value) {
        return value == null ? "NULL" : value;
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            text.append(i == 0 ? "" : "  ").append(String.format("%-" + widths[i] + "s", cells.get(i)));
        }
        return text.toString().stripTrailing();
    }

    private static void printCsv(QueryResult result) {
        System.out.println(String.join(",", result.columns().stream().map(SqlCommand::csv).toList()));
        for (List<String> row : result.rows()) {
            System.out.println(String.join(",", row.stream().map(v -> v == null ? "" : csv(v)).toList()));
        }
    }

    private static String csv(String value) {
        return value.matches("[^,\"\\r\\n]*") ? value : "\"" + value.replace("\"", "\"\"") + "\"";
    }

    private static void printJson(QueryResult result) throws Exception {
        List<Map<String, String>> rows = new ArrayList<>();
        for (List<String> row : result.rows()) {
            Map<String, String> object = new LinkedHashMap<>();
            for (int i = 0; i < row.size(); i++) {
                object.put(result.columns().get(i), row.get(i));
            }
            rows.add(object);
        }
        System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(rows));
    }
}
