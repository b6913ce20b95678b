package dev.deja.cli;

import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.QueryResult;
import dev.deja.text.TextTable;
import java.io.IOException;
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
                "  violations     the latest check's findings: position, predicate, kind, status, node, lamport, end_position,"
                        + " aux, message, witness, status_text (VIOLATED, open at end, closed at N, ERROR, TIMEOUT),"
                        + " counted, below_threshold, aux_at_end",
                "The first query after a check builds T, T_history and events from the stored steps (once; it says so).",
                "A check stores only the steps, so that re-checking stays quick."},
        footer = {"", "Examples:",
                "  ./deja sql traces/t \"SELECT * FROM Agent\"",
                "  ./deja sql traces/t \"SELECT node, accepted_round FROM Agent_history \\",
                "      WHERE valid_from <= 300 AND (valid_to IS NULL OR valid_to > 300)\"",
                "  ./deja sql traces/t \"SELECT predicate, COUNT(*) FROM violations GROUP BY predicate\" --csv",
                "  ./deja sql traces/t \"SELECT position, predicate FROM violations\" --json"})
public final class SqlCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "TRACE", description = "The trace directory (checked at least once).")
    Path trace;

    @Parameters(index = "1", paramLabel = "QUERY", description = "One SELECT (or WITH, VALUES, SHOW, EXPLAIN) statement.")
    String query;

    /** The rows as JSON objects, numbers as numbers. */
    @CommandLine.Mixin
    JsonOutput json;

    @Option(names = "--csv", description = "Print the rows as CSV (RFC 4180: a header line, quoted where needed).")
    boolean csv;

    /** The old {@code --format table|csv|json}, kept so existing scripts run. */
    @Option(names = "--format", hidden = true, paramLabel = "FORMAT")
    void format(String format) {
        switch (format) {
            case "table" -> csv = false;
            case "csv" -> csv = true;
            case "json" -> json.target = JsonOutput.STANDARD_OUTPUT;
            default -> throw new CommandLine.ParameterException(spec.commandLine(), "Invalid value for option "
                    + "'--format': '" + format + "' is not one of table, csv, json (use --csv or --json)");
        }
    }

    @CommandLine.Mixin
    NoDaemonOption noDaemon;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (csv && json.requested()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--csv and --json: choose one");
        }
        PrintWriter err = spec.commandLine().getErr();
        QueryResult result;
        try {
            result = QueryResult.query(trace, query, notice -> {
                err.println(notice);
                err.flush();
            });
        } catch (CheckDatabaseException e) {
            throw new UsageException(e.getMessage(), e);
        }
        if (json.requested()) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (List<Object> row : result.typedRows()) {
                Map<String, Object> object = new LinkedHashMap<>();
                for (int i = 0; i < row.size(); i++) {
                    object.put(result.columns().get(i), row.get(i));
                }
                rows.add(object);
            }
            json.write(rows);
        } else if (csv) {
            printCsv(result);
        } else {
            printTable(result);
        }
        return ExitCodes.OK;
    }

    private static void printTable(QueryResult result) {
        TextTable table = TextTable.withColumns(result.columns());
        for (List<Object> row : result.typedRows()) {
            table.row(row.stream().map(cell -> cell == null ? "NULL" : cell).toList());
        }
        System.out.print(table.render());
        System.out.println("(" + result.rows().size() + (result.rows().size() == 1 ? " row)" : " rows)"));
    }

    private static void printCsv(QueryResult result) throws IOException {
        CsvSchema.Builder schema = CsvSchema.builder().setUseHeader(true);
        result.columns().forEach(schema::addColumn);
        // A SQL NULL is an empty field, as before; every other value as the database wrote it.
        System.out.print(new CsvMapper().writer(schema.build()).writeValueAsString(result.rows()));
        System.out.flush();
    }
}
