package dev.deja.check.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import dev.deja.check.CheckedEvent;
import dev.deja.check.CheckedHistory;
import dev.deja.check.DerivedValues;
import dev.deja.check.PredicateResults;
import dev.deja.check.RowChange;
import dev.deja.check.ScriptOutline;
import dev.deja.check.StateHistory;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * The checker's history in an embedded H2 file database at {@code TRACE/check/history.mv.db}: the only file
 * Deja writes inside a trace after recording, written by {@code deja check} and completed with its tables for
 * queries by the first query after it.
 *
 * <p>Layout, so that "state of table T as of event N" is one query:
 * <ul>
 *   <li>{@code T_history(node, oid, valid_from, valid_to, <columns>)}: every version of every row; a version
 *       is current from the event at {@code valid_from} up to, not including, {@code valid_to} (null: still
 *       current at the end). Column values are readable text: strings as they are, numbers, {@code true}/{@code
 *       false}, lists and maps as JSON; null is SQL NULL.</li>
 *   <li>view {@code T}: the rows current at the end of the trace.</li>
 *   <li>{@code events(position, node, incarnation, seq, lamport, at_millis, type, message_type, from_node)}.</li>
 *   <li>{@code violations(position, predicate, kind, status, node, lamport, end_position, aux, message, witness,
 *       status_text, counted, below_threshold, aux_at_end)}: the latest check's findings, whether it replayed or
 *       read the stored history, as {@code deja check} printed them ({@code status_text}: {@code VIOLATED},
 *       {@code open at end}, {@code closed at N}, {@code ERROR}, {@code TIMEOUT}; {@code counted}: whether it
 *       made the check fail).</li>
 *   <li>{@code deja_steps}, {@code deja_meta}: the exact steps in order, as CBOR, a chunk of up to
 *       {@value #COMMIT_EVERY} steps per row with the names of the tables its steps change (for re-checking without
 *       replay, reading only the chunks a re-check needs), and the table declarations the history was extracted
 *       with.</li>
 *   <li>{@code predicate_results}, {@code deja_derived_results}, {@code deja_derived_changes}: the latest complete
 *       check's findings per predicate and values per derived value, by fingerprint, for re-checks that evaluate
 *       only what changed; a derived value's changes as CBOR chunks ({@link DerivedChunk}).</li>
 * </ul>
 *
 * <p>Writing is built for speed, since it runs alongside every check: a check stores only the steps (and, at its
 * end, the violations). The tables for queries, {@code events} and every {@code T_history} with its view, are
 * built from the stored steps by the first query after the check ({@link #prepareForQueries}), so a check does not
 * pay for them and the edit &rarr; re-check loop, which never queries, does not either. A fresh check starts a new
 * database file (dropping tables would leave the old pages in the file, and compacting it costs more than the
 * check). Writes are batched and committed every {@value #COMMIT_EVERY} steps. Confined to one thread. The
 * database is embedded only: no server or console is ever started.
 */
public final class H2StateHistory implements StateHistory, CheckedHistory {
    /** Whether this history may be written. */
    public enum Mode { READ_WRITE, READ_ONLY }

    /** Directory inside the trace. */
    public static final String DIRECTORY = "check";
    /** Database name inside {@link #DIRECTORY}; H2 adds {@code .mv.db}. */
    public static final String NAME = "history";
    // 5: violations gained witness, status_text, counted, below_threshold and aux_at_end.
    // 6: the reader user that queries run as.
    static final int FORMAT = 7;
    private static final int COMMIT_EVERY = 2_000;
    /** The meta key set once the tables for queries are built. */
    private static final String QUERY_TABLES = "query_tables";
    /** The tables a check writes itself (upper case); the others are built for queries. */
    private static final Set<String> CHECK_TABLES = Set.of("DEJA_META", "DEJA_STEPS", "VIOLATIONS", "PREDICATE_RESULTS",
            "DEJA_DERIVED_RESULTS", "DEJA_DERIVED_CHANGES");
    /** Rows inserted by one statement: H2's cost per statement is about that of a row. */
    private static final int ROWS_PER_STATEMENT = 50;
    private static final ObjectMapper JSON = JsonMapper.builder().addModule(new Jdk8Module())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    // Findings read back exactly as written: integers as Long, like the evaluator's values.
    private static final ObjectMapper RESULTS_JSON = JsonMapper.builder().addModule(new Jdk8Module())
            .addModule(new com.fasterxml.jackson.databind.module.SimpleModule().addDeserializer(Object.class,
                    new WholeNumbers()))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /**
     * Untyped values (aux values, witnesses) with their integers as Long, as {@code ScriptEvaluator} makes them, and
     * those beyond a long's range (Python's ints have none) as BigInteger: Jackson's {@code USE_LONG_FOR_INTS} fails on
     * those.
     */
    private static final class WholeNumbers extends com.fasterxml.jackson.databind.deser.std.UntypedObjectDeserializer {
        private static final long serialVersionUID = 1L;

        WholeNumbers() {
            super(null, (com.fasterxml.jackson.databind.JavaType) null);
        }

        @Override
        public Object deserialize(com.fasterxml.jackson.core.JsonParser parser,
                                  com.fasterxml.jackson.databind.DeserializationContext context) throws IOException {
            if (parser.currentToken() == com.fasterxml.jackson.core.JsonToken.VALUE_NUMBER_INT) {
                return parser.getNumberType() == com.fasterxml.jackson.core.JsonParser.NumberType.BIG_INTEGER
                        ? parser.getBigIntegerValue() : (Object) parser.getLongValue();
            }
            return super.deserialize(parser, context);
        }
    }

    /** The key of the stored script outline in {@code deja_meta}. */
    private static final String SCRIPT_OUTLINE = "script_outline";

    /** The classes H2 may load by name for a database ({@code h2.allowedClasses}). */
    static final String ALLOWED_CLASSES = "org.h2.*";
    /** The database user {@code deja sql} and the viewer query as: SELECT on the tables, no admin rights. */
    static final String READER = "deja_reader";

    static {
        // H2 keeps recently made values (strings, numbers) in a process-wide cache to share equal ones, hashing
        // and comparing every value it makes. The history writes values once and seldom reads them back twice,
        // so the cache only costs: without it writing a 48,352-event Paxos history took 0.115-0.121 s instead of
        // 0.138 s (medians of the last 12 of 30 writes, two runs each). H2 reads the property when its first class
        // is loaded, which in the deja command is after this; a user's own setting is kept.
        if (System.getProperty("h2.objectCache") == null) {
            System.setProperty("h2.objectCache", "false");
        }
        // No user-defined Java from a database file: triggers and functions naming a class, and Java-serialized
        // values, load only H2's own classes (a trigger's Java source is not covered by this, which is why only a
        // sealed database is ever opened, see HistorySeal). Set whatever the user set: it must hold.
        System.setProperty("h2.allowedClasses", ALLOWED_CLASSES);
    }


    private final Path file;
    // The blocks of the seal that connect() removed, for close() to hash only those that changed; null: hash all.
    private HistorySeal.Blocks sealedBlocks;
    private final String url;
    private Connection connection;
    private final Mode mode;
    // Written by another version of Deja: never reused, replaced by the next check.
    private boolean otherFormat;
    private PreparedStatement insertChunk;
    private final StepChunk chunk = new StepChunk();
    private final List<Violation> pendingViolations = new ArrayList<>();
    // Between beginCheck and finishCheck: the steps still held are stored when the check ends either way.
    private boolean checking;
    private long pendingSteps;
    // The id of the next row version a build of the query tables inserts.
    private long nextVersionId;

    private H2StateHistory(Path file, String url, Mode mode) {
        this.file = file;
        this.url = url;
        this.mode = mode;
    }

    /** The database file of {@code trace}. */
    public static Path databaseFile(Path trace) {
        return trace.resolve(DIRECTORY).resolve(NAME + ".mv.db");
    }

    /** Whether {@code trace} holds a history that Deja wrote for this user (only such a one is ever opened). */
    public static boolean isSealed(Path trace) {
        return HistorySeal.isValid(databaseFile(trace));
    }

    /**
     * Opens the history of {@code trace}. READ_WRITE creates {@code TRACE/check/} if needed; READ_ONLY
     * requires an existing database (there is none before the first {@code deja check}).
     */
    public static H2StateHistory open(Path trace, Mode mode) {
        return open(trace, mode, System.err::println);
    }

    /**
     * Like {@link #open(Path, Mode)}, telling {@code notice} (one line) when a database in the trace is ignored
     * because Deja did not write it for this user ({@link HistorySeal}): READ_WRITE then removes it, so that the
     * check rebuilds the history; READ_ONLY refuses it. Such a database is never opened.
     */
    public static H2StateHistory open(Path trace, Mode mode, Consumer<String> notice) {
        Path directory = trace.toAbsolutePath().normalize().resolve(DIRECTORY);
        Path file = directory.resolve(NAME + ".mv.db");
        String base = directory.resolve(NAME).toString();
        if (base.contains(";") || base.contains("\n")) {
            throw new CheckDatabaseException("the trace path " + trace + " contains ';' or a line break, which the"
                    + " embedded database URL cannot hold; move or rename the trace");
        }
        if (mode == Mode.READ_ONLY && !Files.isRegularFile(file)) {
            throw new CheckDatabaseException("no check database at " + file + ": run 'deja check " + trace
                    + " SCRIPT' first; it stores the declared tables' history there");
        }
        try {
            // A database in use is not judged by its seal, which its writer removed while it writes: in this process
            // it is one Deja opened (H2 shares it and does not read the file again), and another process's lock
            // makes H2 refuse to open it at all.
            if (Files.exists(file) && !HistorySeal.isValid(file) && !inUse(file)) {
                String why = file + " was not written by Deja for this user (its seal " + HistorySeal.FILE
                        + " is missing or does not match), so it is not opened";
                if (mode == Mode.READ_ONLY) {
                    throw new CheckDatabaseException(why + "; run 'deja check " + trace + " SCRIPT' to rebuild it");
                }
                notice.accept("deja: " + why + "; it is replaced by the history this check stores");
                discard(file);
            }
            if (mode == Mode.READ_WRITE) {
                Files.createDirectories(directory);
            }
            // No compaction when closing: it rewrote the whole file and cost more than writing it (a fresh check
            // starts a new file instead, see beginCheck). No retention of old data either: H2 keeps it 45 s by default
            // against a power failure during a write, so re-checks in quick succession grew the file by what each
            // rewrote (the store's: 220 KB each). A history a crash interrupts is unsealed and rebuilt anyway, and
            // H2 syncs the file before it closes, which is before the seal is written.
            String url = "jdbc:h2:file:" + base + ";DB_CLOSE_ON_EXIT=FALSE;AUTO_SERVER=FALSE;TRACE_LEVEL_FILE=0"
                    + ";DATABASE_TO_UPPER=FALSE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;MAX_COMPACT_TIME=0;RETENTION_TIME=0"
                    + ";ANALYZE_AUTO=0"
                    + (mode == Mode.READ_ONLY ? ";ACCESS_MODE_DATA=r" : "");
            H2StateHistory history = new H2StateHistory(file, url, mode);
            if (mode == Mode.READ_ONLY) {
                // A read-only open is for queries, which need the database at once; its refusals come from here.
                history.connection();
            }
            return history;
        } catch (SQLException e) {
            throw translate(e, file);
        } catch (IOException e) {
            throw new CheckDatabaseException("cannot create " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Whether some connection, of this process or another, has the database open (H2 holds a lock on it). */
    private static boolean inUse(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (OverlappingFileLockException inThisProcess) {
            return true;
        } catch (NoSuchFileException gone) {
            return false;
        }
    }

    /** Removes a database this user's Deja did not write, with every file H2 may have made beside it. */
    private static void discard(Path file) throws IOException {
        String base = file.getFileName().toString().replace(".mv.db", "");
        for (String suffix : List.of(".mv.db", ".trace.db", ".lock.db", ".mv.db.tempFile")) {
            Files.deleteIfExists(file.resolveSibling(base + suffix));
        }
        HistorySeal.remove(file);
    }

    private Connection connect(String url) throws SQLException {
        if (mode == Mode.READ_WRITE) {
            try {
                // From now on the file may change: unsealed until close() seals it again, hashing only the blocks
                // that changed since the seal removed here (if this process verified it).
                sealedBlocks = HistorySeal.remove(file);
            } catch (IOException e) {
                throw new CheckDatabaseException("cannot remove the seal of " + file + ": " + e.getMessage(), e);
            }
        }
        Connection connection = DriverManager.getConnection(url, "deja", "");
        connection.setAutoCommit(false);
        return connection;
    }

    /**
     * A new connection as {@value #READER}, who may only SELECT from Deja's tables and views: H2 refuses it
     * everything that needs admin rights (FILE_READ, FILE_WRITE, CSVREAD, CSVWRITE, LINK_SCHEMA, SCRIPT,
     * RUNSCRIPT, SHUTDOWN, CREATE ALIAS, SET …) and every change. For queries of a read-only history only.
     */
    Connection readerConnection() throws SQLException {
        if (mode != Mode.READ_ONLY) {
            throw new IllegalStateException(file + " is open for writing; queries use a read-only history");
        }
        connection();
        // The database is open already (connection()); the settings of the URL need admin rights to apply again.
        Connection reader = DriverManager.getConnection(url.substring(0, url.indexOf(';')) + ";ACCESS_MODE_DATA=r",
                READER, "");
        reader.setReadOnly(true);
        return reader;
    }

    /**
     * The JDBC connection, made on first use: a check that starts a new file ({@link #beginCheck}) never opens the
     * old one, which saves an open and a close of the database per check. A refused database (another version's,
     * read-only) is closed again before the refusal is thrown.
     */
    Connection connection() throws SQLException {
        if (connection == null) {
            connection = connect(url);
            forgetCatalog();
            try {
                checkFormat();
            } catch (RuntimeException | SQLException e) {
                connection.close();
                connection = null;
                throw e;
            }
        }
        return connection;
    }

    /** The database file. */
    public Path file() {
        return file;
    }

    private void checkFormat() throws SQLException {
        if (!tableExists("DEJA_META")) {
            return;
        }
        String format = meta("format").orElse("?");
        if (!format.equals(Integer.toString(FORMAT))) {
            if (mode == Mode.READ_ONLY) {
                throw new CheckDatabaseException(file + " was written by another version of Deja (format " + format
                        + ", this one reads " + FORMAT + "); run 'deja check' on the trace again to rebuild it");
            }
            // Only ever rebuilt: the next check replaces it as a whole.
            otherFormat = true;
        }
    }

    /** Whether the database was written by another version of Deja (known once it is open). */
    private boolean isOtherFormat() throws SQLException {
        connection();
        return otherFormat;
    }

    /** Whether this is a complete history of this version's format: a check that finished wrote it. */
    /** Whether the stored history covers the whole trace (its last check reached the end). */
    public boolean coversWholeTrace() {
        try {
            return isThisFormat() && isComplete();
        } catch (SQLException e) {
            throw failure("read the history's state", e);
        }
    }

    private boolean isComplete() throws SQLException {
        return isThisFormat() && flag("complete");
    }

    /** Whether the database holds a history of this version's format, complete or not. */
    private boolean isThisFormat() throws SQLException {
        return !isOtherFormat() && tableExists("DEJA_META");
    }

    /** Whether the meta flag {@code key} is set ({@code "true"}); unset flags are false. */
    private boolean flag(String key) throws SQLException {
        return meta(key).orElse("false").equals("true");
    }

    /** The table declarations the stored steps were extracted with. */
    private List<TableSchema> storedSchemas() throws SQLException, JsonProcessingException {
        return JSON.readValue(meta("schemas").orElse("[]"), new TypeReference<>() { });
    }

    /**
     * Replaces the database file with an empty one, when no other connection (of this process or another) has it
     * open, which the file lock shows; otherwise the caller drops the tables instead.
     */
    private boolean startNewFile() throws SQLException, IOException {
        if (connection != null) {
            connection.close();
            connection = null;
        }
        boolean replaced = false;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock lock = null;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException inThisProcess) {
                // Another connection of this process still has the database open.
            }
            if (lock != null) {
                Files.delete(file);
                replaced = true;
                lock.release();
            }
        } catch (NoSuchFileException gone) {
            replaced = true;
        }
        connection = connect(url);
        forgetCatalog();
        return replaced;
    }

    @Override
    public void beginCheck(List<TableSchema> newSchemas) {
        requireWritable();
        try {
            if (!startNewFile()) {
                dropTablesBut(Set.of());
            }
        } catch (SQLException | IOException e) {
            throw new CheckDatabaseException("cannot start a new history in " + file + ": " + e.getMessage(), e);
        }
        otherFormat = false;
        try (Statement statement = connection().createStatement()) {
            createTables(newSchemas, statement);
        } catch (SQLException | JsonProcessingException e) {
            throw failure("start the history", e);
        }
        chunk.clear();
        pendingViolations.clear();
        pendingSteps = 0;
        checking = true;
    }

    /** Drops every view and every table but those named in {@code kept} (upper case). */
    private void dropTablesBut(Set<String> kept) throws SQLException {
        try (Statement statement = connection().createStatement()) {
            for (String view : existingViews()) {
                ddl(statement, "DROP VIEW IF EXISTS " + quote(view));
            }
            for (String table : existingTables()) {
                if (!kept.contains(table.toUpperCase(java.util.Locale.ROOT))) {
                    ddl(statement, "DROP TABLE IF EXISTS " + quote(table) + " CASCADE");
                }
            }
        }
    }

    private void createTables(List<TableSchema> newSchemas, Statement statement) throws SQLException, JsonProcessingException {
        for (TableSchema schema : newSchemas) {
            requireFreeName(schema);
        }
        ddl(statement, "CREATE TABLE deja_meta(meta_key VARCHAR PRIMARY KEY, meta_value VARCHAR)");
        ddl(statement, "CREATE TABLE deja_steps(first_position BIGINT PRIMARY KEY, last_position BIGINT NOT NULL,"
                + " steps VARBINARY NOT NULL, changed_tables VARCHAR NOT NULL)");
        ddl(statement, "CREATE TABLE violations(id INT AUTO_INCREMENT PRIMARY KEY, position BIGINT, predicate VARCHAR,"
                + " kind VARCHAR, status VARCHAR, node VARCHAR, lamport BIGINT, end_position BIGINT, aux VARCHAR,"
                + " message VARCHAR, violation_json VARCHAR, witness VARCHAR, status_text VARCHAR, counted BOOLEAN,"
                + " below_threshold BOOLEAN, aux_at_end VARCHAR)");
        // The user queries run as (readerConnection): a schema grant also covers the tables built later.
        statement.execute("CREATE USER IF NOT EXISTS " + READER + " PASSWORD ''");
        statement.execute("GRANT SELECT ON SCHEMA PUBLIC TO " + READER);
        putMeta("format", Integer.toString(FORMAT));
        putMeta("schemas", JSON.writeValueAsString(newSchemas));
        putMeta("complete", "false");
        insertChunk = connection().prepareStatement(
                "INSERT INTO deja_steps(first_position, last_position, steps, changed_tables) VALUES (?, ?, ?, ?)");
        connection().commit();
    }

    /** The names the database's own tables take are refused as soon as a check starts, naming the table. */
    private static void requireFreeName(TableSchema schema) {
        String upper = schema.name().toUpperCase(java.util.Locale.ROOT);
        if (upper.equals("EVENTS") || upper.equals("VIOLATIONS") || upper.startsWith("DEJA_")) {
            throw new IllegalArgumentException("table name '" + schema.name() + "' is reserved by the check database"
                    + " (events, violations, deja_*); rename the table in the script");
        }
    }

    /** Sets the parameters of one row from {@code offset} (0 for the first row of a statement). */
    @FunctionalInterface
    private interface RowSetter<T> {
        void set(PreparedStatement insert, int offset, T row) throws SQLException;
    }

    /**
     * Inserts rows into one table {@value #ROWS_PER_STATEMENT} to a statement, batched until {@link #flush}, which
     * inserts the rest one to a statement.
     */
    private final class BatchedInsert<T> {
        private final PreparedStatement one;
        private final PreparedStatement many;
        private final int width;
        private final RowSetter<T> setter;
        private final List<T> pending = new ArrayList<>(ROWS_PER_STATEMENT);

        BatchedInsert(String table, int width, RowSetter<T> setter) throws SQLException {
            this.width = width;
            this.setter = setter;
            String row = "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
            this.one = connection().prepareStatement("INSERT INTO " + table + " VALUES " + row);
            this.many = connection().prepareStatement("INSERT INTO " + table + " VALUES "
                    + String.join(", ", Collections.nCopies(ROWS_PER_STATEMENT, row)));
        }

        void add(T row) throws SQLException {
            pending.add(row);
            if (pending.size() == ROWS_PER_STATEMENT) {
                for (int i = 0; i < ROWS_PER_STATEMENT; i++) {
                    setter.set(many, width * i, pending.get(i));
                }
                many.addBatch();
                pending.clear();
            }
        }

        void flush() throws SQLException {
            many.executeBatch();
            for (T row : pending) {
                setter.set(one, 0, row);
                one.addBatch();
            }
            pending.clear();
            one.executeBatch();
        }
    }

    @Override
    public void append(StateStep step) {
        requireWritable();
        CheckedEvent event = step.event();
        try {
            chunk.add(step);
            if (++pendingSteps % COMMIT_EVERY == 0) {
                flush();
            }
        } catch (SQLException | IOException e) {
            throw failure("store the state after event " + event.position(), e);
        }
    }

    private static void setEvent(PreparedStatement insert, int offset, CheckedEvent event) throws SQLException {
        insert.setLong(offset + 1, event.position());
        insert.setString(offset + 2, event.node().value());
        insert.setInt(offset + 3, event.incarnation());
        insert.setLong(offset + 4, event.seq());
        insert.setLong(offset + 5, event.lamport());
        insert.setLong(offset + 6, event.atMillis());
        insert.setString(offset + 7, event.type());
        insert.setString(offset + 8, event.messageType().orElse(null));
        insert.setString(offset + 9, event.from().map(NodeId::value).orElse(null));
    }

    private void flush() throws SQLException, IOException {
        if (!chunk.isEmpty()) {
            insertChunk.setLong(1, chunk.firstPosition());
            insertChunk.setLong(2, chunk.lastPosition());
            insertChunk.setString(4, JSON.writeValueAsString(chunk.tables()));
            insertChunk.setBytes(3, chunk.finish());
            insertChunk.executeUpdate();
            chunk.clear();
        }
        connection().commit();
    }

    /** Stores the steps still held. */
    private void endCheck() throws SQLException, IOException {
        flush();
        checking = false;
    }

    @Override
    public void recordViolation(Violation violation) {
        requireWritable();
        pendingViolations.add(violation);
    }

    @Override
    public void finishCheck() {
        requireWritable();
        try {
            endCheck();
            insertViolations(pendingViolations);
            putMeta("complete", "true");
            connection().commit();
        } catch (SQLException | IOException e) {
            throw failure("finish the history", e);
        }
    }

    @Override
    public void replaceViolations(List<Violation> violations) {
        requireWritable();
        try {
            List<String> texts = jsonTexts(violations);
            // A re-check mostly finds what the check before it found: the stored rows are left as they are then, so that
            // the file (and its seal) changes only where something did. The other columns follow from the violation's
            // JSON, except two that this build's code derives from it (its status text, whether it counts), which are
            // compared too.
            List<String> stored = new ArrayList<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery("SELECT violation_json, status_text, counted FROM violations"
                         + " ORDER BY id")) {
                while (rows.next()) {
                    stored.add(rows.getString(1) + "\n" + rows.getString(2) + "\n" + rows.getBoolean(3));
                }
            }
            List<String> wanted = new ArrayList<>(violations.size());
            for (int i = 0; i < violations.size(); i++) {
                wanted.add(texts.get(i) + "\n" + violations.get(i).statusText() + "\n" + violations.get(i).counted());
            }
            if (stored.equals(wanted)) {
                return;
            }
            try (Statement statement = connection().createStatement()) {
                statement.execute("DELETE FROM violations");
            }
            insertViolations(violations, texts);
            connection().commit();
        } catch (SQLException | IOException e) {
            throw failure("store the check's violations", e);
        }
    }

    private void insertViolations(List<Violation> violations) throws SQLException, IOException {
        insertViolations(violations, jsonTexts(violations));
    }

    /** Each violation's JSON text, as its row's {@code violation_json} holds it. */
    private static List<String> jsonTexts(List<Violation> violations) throws JsonProcessingException {
        List<String> texts = new ArrayList<>(violations.size());
        for (Violation violation : violations) {
            texts.add(JSON.writeValueAsString(violation));
        }
        return texts;
    }

    /** Inserts {@code violations}, whose JSON texts are {@code texts} (in the same order). */
    private void insertViolations(List<Violation> violations, List<String> texts) throws SQLException, IOException {
        try (PreparedStatement insert = connection().prepareStatement("INSERT INTO violations(position, predicate, kind,"
                + " status, node, lamport, end_position, aux, message, violation_json, witness, status_text, counted,"
                + " below_threshold, aux_at_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < violations.size(); i++) {
                Violation violation = violations.get(i);
                insert.setLong(1, violation.event().position());
                insert.setString(2, violation.predicate());
                insert.setString(3, violation.kind().name());
                insert.setString(4, violation.status().name());
                insert.setString(5, violation.event().node().value());
                insert.setLong(6, violation.event().lamport());
                if (violation.endPosition().isPresent()) {
                    insert.setLong(7, violation.endPosition().get());
                } else {
                    insert.setNull(7, Types.BIGINT);
                }
                insert.setString(8, JSON.writeValueAsString(violation.aux()));
                insert.setString(9, violation.message());
                insert.setString(10, texts.get(i));
                insert.setString(11, violation.witness() == null ? null : JSON.writeValueAsString(violation.witness()));
                insert.setString(12, violation.statusText());
                insert.setBoolean(13, violation.counted());
                insert.setBoolean(14, violation.belowThreshold());
                insert.setString(15, JSON.writeValueAsString(violation.auxAtEnd()));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    /** Whether the tables for queries are still to be built from the stored steps (see {@link #prepareForQueries}). */
    boolean needsQueryTables() {
        try {
            return isThisFormat() && !flag(QUERY_TABLES);
        } catch (SQLException e) {
            throw failure("read the history's state", e);
        }
    }

    /**
     * Builds the tables for queries of {@code trace}'s history ({@code events}, every declared table's {@code
     * _history} table and its view) from the stored steps, unless they are built already. The first query after
     * each check does this, once; {@code notice} is told before a build starts, which takes about as long as a
     * check's history writes did before they were left to it.
     *
     * @throws CheckDatabaseException if the database cannot be written (the directory is read-only, another process
     *                                has it open) or a stored chunk is unreadable
     */
    public static void prepareForQueries(Path trace, Consumer<String> notice) {
        Path file = databaseFile(trace);
        if (!Files.isWritable(file) || !Files.isWritable(file.getParent())) {
            throw new CheckDatabaseException(file + ": the tables for queries are built from the stored steps by the"
                    + " first query after a check, which needs write access to " + file.getParent()
                    + "; query once with write access, or check the trace again with it");
        }
        try (H2StateHistory history = open(trace, Mode.READ_WRITE)) {
            if (history.needsQueryTables()) {
                notice.accept("deja: building the query tables of " + file + " from the stored steps (once after"
                        + " each check)");
                history.buildQueryTables();
            }
        }
    }

    private void buildQueryTables() {
        try {
            // A build stopped half-way (its process was killed) left some of them: start again.
            dropTablesBut(CHECK_TABLES);
            Map<String, TableWriter> writers = new LinkedHashMap<>();
            try (Statement statement = connection().createStatement()) {
                ddl(statement, "CREATE TABLE events(position BIGINT PRIMARY KEY, node VARCHAR NOT NULL,"
                        + " incarnation INT, seq BIGINT, lamport BIGINT, at_millis BIGINT, type VARCHAR,"
                        + " message_type VARCHAR, from_node VARCHAR)");
                for (TableSchema schema : storedSchemas()) {
                    writers.put(schema.name(), new TableWriter(schema, statement));
                }
            }
            BatchedInsert<CheckedEvent> events = new BatchedInsert<>("events", 9, H2StateHistory::setEvent);
            nextVersionId = 1;
            List<Long> chunks = new ArrayList<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery("SELECT first_position FROM deja_steps ORDER BY first_position")) {
                while (rows.next()) {
                    chunks.add(rows.getLong(1));
                }
            }
            // A chunk at a time, committed after each, so that no result set stays open across a commit.
            try (PreparedStatement read = connection().prepareStatement("SELECT steps FROM deja_steps WHERE first_position = ?")) {
                for (long first : chunks) {
                    read.setLong(1, first);
                    byte[] stored;
                    try (ResultSet rows = read.executeQuery()) {
                        rows.next();
                        stored = rows.getBytes(1);
                    }
                    for (StateStep step : StepChunk.read(stored)) {
                        events.add(step.event());
                        for (RowChange change : step.changes()) {
                            TableWriter writer = writers.get(change.table());
                            if (writer == null) {
                                throw new CheckDatabaseException(file + ": a stored change at event "
                                        + step.event().position() + " is to table " + change.table()
                                        + ", which the stored declarations do not have");
                            }
                            writer.apply(step.event().position(), change);
                        }
                    }
                    events.flush();
                    for (TableWriter writer : writers.values()) {
                        writer.flush();
                    }
                    connection().commit();
                }
            }
            for (TableWriter writer : writers.values()) {
                writer.writeCurrent();
                writer.flush();
            }
            putMeta(QUERY_TABLES, "true");
            connection().commit();
        } catch (SQLException | JsonProcessingException e) {
            throw failure("build the query tables", e);
        }
    }

    @Override
    public boolean hasCompleteHistory(List<TableSchema> wanted) {
        try {
            return isComplete() && storedSchemas().equals(wanted);
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the history's table declarations", e);
        }
    }

    @Override
    public Optional<String> unservable(List<TableSchema> wanted) {
        try {
            if (isOtherFormat()) {
                return Optional.of("the stored history was written by another version of Deja (format "
                        + meta("format").orElse("?") + ", this one reads " + FORMAT + ")");
            }
            if (!isComplete()) {
                return Optional.of(StateHistory.NO_HISTORY);
            }
            Map<String, TableSchema> stored = new HashMap<>();
            for (TableSchema schema : storedSchemas()) {
                stored.put(schema.name(), schema);
            }
            for (TableSchema schema : wanted) {
                TableSchema old = stored.get(schema.name());
                if (old == null) {
                    return Optional.of("table " + schema.name() + " is new, so the stored history lacks it");
                }
                if (!old.className().equals(schema.className())) {
                    return Optional.of("table " + schema.name() + " now takes its rows from " + schema.className()
                            + ", the stored history from " + old.className());
                }
                for (String column : schema.columns()) {
                    if (!old.columns().contains(column)) {
                        return Optional.of("table " + schema.name() + " declares column " + column
                                + ", which the stored history lacks");
                    }
                }
            }
            return Optional.empty();
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the history's table declarations", e);
        }
    }

    @Override
    public Optional<PredicateResults> predicateResults() {
        try {
            if (!isComplete() || !tableExists("PREDICATE_RESULTS")) {
                return Optional.empty();
            }
            Optional<String> events = meta("events_checked");
            if (events.isEmpty()) {
                return Optional.empty();
            }
            Map<String, PredicateResults.Result> out = new LinkedHashMap<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery("SELECT predicate, result_json FROM predicate_results ORDER BY id")) {
                while (rows.next()) {
                    out.put(rows.getString(1), RESULTS_JSON.readValue(rows.getString(2), PredicateResults.Result.class));
                }
            }
            return Optional.of(new PredicateResults(Long.parseLong(events.get()), out));
        } catch (SQLException | JsonProcessingException | NumberFormatException e) {
            throw failure("read the stored predicate results", e);
        }
    }

    @Override
    public void storePredicateResults(PredicateResults results) {
        requireWritable();
        try (Statement statement = connection().createStatement()) {
            ddl(statement, "CREATE TABLE IF NOT EXISTS predicate_results(id INT AUTO_INCREMENT PRIMARY KEY,"
                    + " predicate VARCHAR NOT NULL, result_json VARCHAR NOT NULL)");
            statement.execute("DELETE FROM predicate_results");
            try (PreparedStatement insert = connection().prepareStatement(
                    "INSERT INTO predicate_results(predicate, result_json) VALUES (?, ?)")) {
                for (Map.Entry<String, PredicateResults.Result> entry : results.byPredicate().entrySet()) {
                    insert.setString(1, entry.getKey());
                    insert.setString(2, RESULTS_JSON.writeValueAsString(entry.getValue()));
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            putMeta("events_checked", Long.toString(results.eventsChecked()));
            connection().commit();
        } catch (SQLException | JsonProcessingException e) {
            throw failure("store the predicate results", e);
        }
    }

    @Override
    public Optional<ScriptOutline> scriptOutline() {
        try {
            if (!isComplete()) {
                return Optional.empty();
            }
            Optional<String> json = meta(SCRIPT_OUTLINE);
            return json.isEmpty() ? Optional.empty() : Optional.of(RESULTS_JSON.readValue(json.get(), ScriptOutline.class));
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the stored script outline", e);
        }
    }

    @Override
    public void storeScriptOutline(ScriptOutline outline) {
        requireWritable();
        try {
            putMeta(SCRIPT_OUTLINE, RESULTS_JSON.writeValueAsString(outline));
            connection().commit();
        } catch (SQLException | JsonProcessingException e) {
            throw failure("store the script outline", e);
        }
    }

    @Override
    public Map<String, String> derivedFingerprints() {
        try {
            if (!isComplete() || !tableExists("DEJA_DERIVED_RESULTS")) {
                return Map.of();
            }
            Map<String, String> out = new LinkedHashMap<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery("SELECT derived, fingerprint FROM deja_derived_results ORDER BY derived")) {
                while (rows.next()) {
                    out.put(rows.getString(1), rows.getString(2));
                }
            }
            return out;
        } catch (SQLException e) {
            throw failure("read the stored derived values", e);
        }
    }

    @Override
    public List<DerivedValues.Change> derivedChanges(String name) {
        try {
            if (!tableExists("DEJA_DERIVED_CHANGES")) {
                return List.of();
            }
            List<byte[]> chunks = new ArrayList<>();
            try (PreparedStatement select = connection().prepareStatement(
                    "SELECT changes FROM deja_derived_changes WHERE derived = ? ORDER BY chunk")) {
                select.setString(1, name);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        chunks.add(rows.getBytes(1));
                    }
                }
            }
            // Decoding is what costs, not reading: the same stored chunks are decoded once per process.
            List<DerivedValues.Change> known = DecodedDerivedChanges.lookup(file, name, chunks);
            if (known != null) {
                return known;
            }
            List<DerivedValues.Change> out = new ArrayList<>();
            for (byte[] chunk : chunks) {
                DerivedChunk.read(chunk, out);
            }
            return DecodedDerivedChanges.remember(file, name, chunks, out);
        } catch (SQLException | IOException e) {
            throw failure("read the stored values of derived value " + name, e);
        }
    }

    @Override
    public void storeDerivedValues(Map<String, DerivedValues> fresh, Set<String> kept) {
        requireWritable();
        try (Statement statement = connection().createStatement()) {
            ddl(statement, "CREATE TABLE IF NOT EXISTS deja_derived_results(derived VARCHAR PRIMARY KEY,"
                    + " fingerprint VARCHAR NOT NULL)");
            // Chunks of DerivedChunk.SIZE changes: a value that changes at every event is a few rows, not one per event.
            ddl(statement, "CREATE TABLE IF NOT EXISTS deja_derived_changes(derived VARCHAR NOT NULL,"
                    + " chunk INT NOT NULL, changes VARBINARY NOT NULL, PRIMARY KEY (derived, chunk))");
            List<String> forgotten = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT derived FROM deja_derived_results")) {
                while (rows.next()) {
                    if (!kept.contains(rows.getString(1))) {
                        forgotten.add(rows.getString(1));
                    }
                }
            }
            try (PreparedStatement deleteResult = connection().prepareStatement("DELETE FROM deja_derived_results WHERE derived = ?");
                 PreparedStatement deleteChanges = connection().prepareStatement("DELETE FROM deja_derived_changes WHERE derived = ?")) {
                for (String name : forgotten) {
                    deleteResult.setString(1, name);
                    deleteResult.executeUpdate();
                    deleteChanges.setString(1, name);
                    deleteChanges.executeUpdate();
                }
            }
            try (PreparedStatement result = connection().prepareStatement(
                    "INSERT INTO deja_derived_results(derived, fingerprint) VALUES (?, ?)");
                 PreparedStatement chunk = connection().prepareStatement(
                         "INSERT INTO deja_derived_changes(derived, chunk, changes) VALUES (?, ?, ?)")) {
                for (Map.Entry<String, DerivedValues> entry : fresh.entrySet()) {
                    if (kept.contains(entry.getKey())) {
                        continue;
                    }
                    result.setString(1, entry.getKey());
                    result.setString(2, entry.getValue().fingerprint());
                    result.executeUpdate();
                    List<DerivedValues.Change> changes = entry.getValue().changes();
                    for (int from = 0; from < changes.size(); from += DerivedChunk.SIZE) {
                        List<DerivedValues.Change> part = changes.subList(from, Math.min(changes.size(), from + DerivedChunk.SIZE));
                        chunk.setString(1, entry.getKey());
                        chunk.setInt(2, from / DerivedChunk.SIZE);
                        chunk.setBytes(3, DerivedChunk.write(part));
                        chunk.addBatch();
                    }
                    chunk.executeBatch();
                }
            }
            connection().commit();
        } catch (SQLException | IOException e) {
            throw failure("store the derived values", e);
        }
    }

    @Override
    public long replayHistoryAt(Set<Long> positions, Set<String> changing, Set<String> tables,
                                Consumer<StateStep> consumer) {
        // Only the chunks holding one of the positions (and the first) or changing one of those tables are read; in the
        // first kind only those steps are decoded, and in every chunk only the changes of the tables wanted.
        List<Long> wanted = new ArrayList<>(positions);
        Collections.sort(wanted);
        long[] count = {0};
        if (changing.isEmpty() && wanted.size() <= FEW_POSITIONS) {
            // No table's changes wanted: each position's chunk is found by the primary key, without a scan of them all.
            java.util.TreeSet<Long> firsts = new java.util.TreeSet<>();
            try (Statement statement = connection().createStatement();
                 ResultSet first = statement.executeQuery("SELECT MIN(first_position) FROM deja_steps");
                 PreparedStatement holding = connection().prepareStatement("SELECT first_position, last_position"
                         + " FROM deja_steps WHERE first_position <= ? ORDER BY first_position DESC LIMIT 1")) {
                if (first.next() && first.getObject(1) != null) {
                    firsts.add(first.getLong(1));
                }
                for (long position : wanted) {
                    holding.setLong(1, position);
                    try (ResultSet chunk = holding.executeQuery()) {
                        if (chunk.next() && chunk.getLong(2) >= position) {
                            firsts.add(chunk.getLong(1));
                        }
                    }
                }
                readChunks(new ArrayList<>(firsts), Set.of(), positions, tables, consumer, count);
            } catch (SQLException e) {
                throw failure("read the stored history", e);
            }
            return count[0];
        }
        try (Statement statement = connection().createStatement();
             ResultSet ranges = statement.executeQuery(
                     "SELECT first_position, last_position, changed_tables FROM deja_steps ORDER BY first_position")) {
            List<Long> firsts = new ArrayList<>();
            Set<Long> whole = new java.util.HashSet<>();
            int at = 0;
            boolean first = true;
            while (ranges.next()) {
                long from = ranges.getLong(1);
                long to = ranges.getLong(2);
                while (at < wanted.size() && wanted.get(at) < from) {
                    at++;
                }
                boolean changes = false;
                if (!changing.isEmpty()) {
                    for (String table : JSON.readValue(ranges.getString(3), String[].class)) {
                        changes |= changing.contains(table);
                    }
                }
                if (changes) {
                    whole.add(from);
                }
                if (first || changes || (at < wanted.size() && wanted.get(at) <= to)) {
                    firsts.add(from);
                }
                first = false;
            }
            readChunks(firsts, whole, positions, tables, consumer, count);
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the stored history", e);
        }
        return count[0];
    }

    /** Up to how many positions {@link #replayHistoryAt} finds their chunks one by one instead of scanning them all. */
    private static final int FEW_POSITIONS = 256;

    /**
     * Hands {@code consumer} the steps of the chunks that begin at {@code firsts} (in order): every step of those in
     * {@code whole}, in the others the very first step read and those at {@code positions}; only the changes of
     * {@code tables} (all when null). Counts them in {@code count[0]}.
     */
    private void readChunks(List<Long> firsts, Set<Long> whole, Set<Long> positions, Set<String> tables,
                            Consumer<StateStep> consumer, long[] count) throws SQLException {
        boolean[] firstStep = {true};
        Predicate<String> tableWanted = tables == null ? table -> true : tables::contains;
        long[] wanted = positions.stream().mapToLong(Long::longValue).sorted().toArray();
        try (PreparedStatement chunk = connection().prepareStatement("SELECT steps FROM deja_steps WHERE first_position = ?")) {
            for (int index = 0; index < firsts.size(); index++) {
                long from = firsts.get(index);
                boolean all = whole.contains(from);
                // Read up to the last step wanted from this chunk: the last position before the next chunk read, or the
                // chunk's first step if it is the very first step read.
                long last = Long.MAX_VALUE;
                if (!all) {
                    long next = index + 1 < firsts.size() ? firsts.get(index + 1) : Long.MAX_VALUE;
                    int below = java.util.Arrays.binarySearch(wanted, next);
                    below = (below >= 0 ? below : -below - 1) - 1;
                    last = below >= 0 && wanted[below] >= from ? wanted[below] : Long.MIN_VALUE;
                    if (firstStep[0]) {
                        last = Math.max(last, from);
                    }
                }
                LongPredicate given = position -> {
                    boolean take = all || firstStep[0] || positions.contains(position);
                    firstStep[0] = false;
                    return take;
                };
                chunk.setLong(1, from);
                try (ResultSet rows = chunk.executeQuery()) {
                    while (rows.next()) {
                        StepChunk.read(rows.getBytes(1), given, last, tableWanted, step -> {
                            consumer.accept(step);
                            count[0]++;
                        });
                    }
                }
            }
        }
    }

    @Override
    public long replayHistory(long fromPosition, Consumer<StateStep> consumer) {
        return replayHistory(fromPosition, null, consumer);
    }

    @Override
    public long replayHistory(long fromPosition, Set<String> tables, Consumer<StateStep> consumer) {
        Predicate<String> tableWanted = tables == null ? table -> true : tables::contains;
        long[] count = {0};
        try (PreparedStatement chunks = connection().prepareStatement(
                "SELECT steps FROM deja_steps WHERE last_position >= ? ORDER BY first_position")) {
            chunks.setLong(1, fromPosition);
            chunks.setFetchSize(16);
            try (ResultSet rows = chunks.executeQuery()) {
                while (rows.next()) {
                    StepChunk.read(rows.getBytes(1), position -> position >= fromPosition, tableWanted, step -> {
                        consumer.accept(step);
                        count[0]++;
                    });
                }
            }
        } catch (SQLException e) {
            throw failure("read the stored history", e);
        }
        return count[0];
    }

    /**
     * The stored check of {@code trace} for queries ({@link CheckedHistory}), opened read-only with its tables for
     * queries built first if they are not yet (see {@link #prepareForQueries}); empty when the trace was never
     * checked.
     */
    public static Optional<CheckedHistory> openForQueries(Path trace) {
        // A database Deja did not write for this user is never opened: to a reader it is as if never checked.
        if (!Files.isRegularFile(databaseFile(trace)) || !isSealed(trace)) {
            return Optional.empty();
        }
        return Optional.of(QueryResult.readyForQueries(trace, notice -> { }));
    }

    @Override
    public Optional<List<TableSchema>> tables() {
        try {
            return isThisFormat() && meta("schemas").isPresent() ? Optional.of(List.copyOf(storedSchemas()))
                    : Optional.empty();
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the history's table declarations", e);
        }
    }

    /** See {@link CheckedHistory#rowsAt}; needs the tables for queries, which {@link #openForQueries} builds. */
    @Override
    public List<CheckedHistory.Row> rowsAt(TableSchema table, NodeId node, long position) {
        if (needsQueryTables()) {
            throw new CheckDatabaseException(file + ": the tables for queries are not built yet; open the history"
                    + " with openForQueries to read rows");
        }
        StringBuilder sql = new StringBuilder("SELECT oid");
        for (String column : table.columns()) {
            sql.append(", ").append(quote(column));
        }
        sql.append(" FROM ").append(quote(table.name() + "_history"))
                .append(" WHERE node = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?) ORDER BY oid");
        try (PreparedStatement query = connection().prepareStatement(sql.toString())) {
            query.setString(1, node.value());
            query.setLong(2, position);
            query.setLong(3, position);
            List<CheckedHistory.Row> rows = new ArrayList<>();
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    List<String> values = new ArrayList<>(table.columns().size());
                    for (int i = 0; i < table.columns().size(); i++) {
                        values.add(result.getString(i + 2));
                    }
                    rows.add(new CheckedHistory.Row(result.getLong(1), values));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw failure("read " + node + "'s rows of " + table.name() + " at event " + position, e);
        }
    }

    @Override
    public Optional<List<Violation>> lastViolations() {
        try {
            // Also after a check that stopped early (--to, --limit): its findings are the latest check's.
            if (!isThisFormat()) {
                return Optional.empty();
            }
            List<Violation> out = new ArrayList<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery("SELECT violation_json FROM violations ORDER BY id")) {
                while (rows.next()) {
                    out.add(JSON.readValue(rows.getString(1), Violation.class));
                }
            }
            return Optional.of(out);
        } catch (SQLException | JsonProcessingException e) {
            throw failure("read the stored violations", e);
        }
    }

    @Override
    public void close() {
        try {
            if (connection == null) {
                return;
            }
            if (mode == Mode.READ_WRITE && !connection.isClosed()) {
                if (checking) {
                    // A check that stopped early (--to, --limit) or failed keeps every step it stored.
                    endCheck();
                }
                connection.commit();
            }
            connection.close();
            if (mode == Mode.READ_WRITE) {
                HistorySeal.write(file, sealedBlocks);
            }
        } catch (SQLException | IOException e) {
            throw failure("close the database", e);
        }
    }

    private void requireWritable() {
        if (mode != Mode.READ_WRITE) {
            throw new IllegalStateException(file + " is open read-only");
        }
    }

    /**
     * The tables and views of the history, upper-cased, as last read (a query of the information schema costs a few
     * milliseconds, and a re-check asks about a dozen times); null once this instance creates or drops a table or view,
     * or connects again. Only this instance changes the tables while it is open: H2's file lock keeps other processes
     * out, and the warm engine runs one command at a time.
     */
    private Set<String> knownTables;

    /** The rows of {@code deja_meta} as last read or written here; null when {@link #knownTables} is (see there). */
    private Map<String, String> knownMeta;

    /** Runs {@code sql}, which creates or drops a table or view, and forgets what was read of them. */
    private void ddl(Statement statement, String sql) throws SQLException {
        statement.execute(sql);
        forgetCatalog();
    }

    /** Forgets {@link #knownTables} and {@link #knownMeta}: the tables changed, or the connection is a new one. */
    private void forgetCatalog() {
        knownTables = null;
        knownMeta = null;
    }

    private boolean tableExists(String upperName) throws SQLException {
        if (knownTables == null) {
            Set<String> names = new java.util.HashSet<>();
            try (Statement statement = connection().createStatement();
                 ResultSet rows = statement.executeQuery(
                         "SELECT UPPER(TABLE_NAME) FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_SCHEMA) = 'PUBLIC'")) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
            knownTables = names;
        }
        return knownTables.contains(upperName);
    }

    private List<String> existingTables() throws SQLException {
        return names("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_SCHEMA) = 'PUBLIC' AND TABLE_TYPE = 'BASE TABLE'");
    }

    private List<String> existingViews() throws SQLException {
        return names("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_SCHEMA) = 'PUBLIC' AND TABLE_TYPE = 'VIEW'");
    }

    private List<String> names(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement statement = connection().createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                out.add(rows.getString(1));
            }
        }
        return out;
    }

    private Optional<String> meta(String key) throws SQLException {
        Connection connection = connection();
        if (knownMeta == null) {
            // Read whole (a few rows), as knownTables is: a re-check asks for about a dozen of them.
            Map<String, String> values = new HashMap<>();
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT meta_key, meta_value FROM deja_meta")) {
                while (rows.next()) {
                    values.put(rows.getString(1), rows.getString(2));
                }
            }
            knownMeta = values;
        }
        return Optional.ofNullable(knownMeta.get(key));
    }

    private void putMeta(String key, String value) throws SQLException {
        try (PreparedStatement merge = connection().prepareStatement("MERGE INTO deja_meta KEY(meta_key) VALUES (?, ?)")) {
            merge.setString(1, key);
            merge.setString(2, value);
            merge.executeUpdate();
        }
        if (knownMeta != null) {
            knownMeta.put(key, value);
        }
    }

    private CheckDatabaseException failure(String doing, Exception e) {
        if (e instanceof SQLException sql) {
            return translate(sql, file);
        }
        return new CheckDatabaseException("cannot " + doing + " in " + file + ": " + e.getMessage(), e);
    }

    static CheckDatabaseException translate(SQLException e, Path file) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("Database may be already in use") || message.contains("locked")) {
            return new CheckDatabaseException(file + " is in use by another Deja process (a check or a viewer of the"
                    + " same trace); wait for it to finish", e);
        }
        return new CheckDatabaseException(file + ": " + message.lines().findFirst().orElse(message), e);
    }

    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** Text a person reads in SQL results: strings bare, lists and maps as JSON, null as NULL. */
    static String readable(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return text;
        }
        if (value instanceof Long || value instanceof Double || value instanceof Boolean) {
            return value.toString();
        }
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }

    /** Keeps one declared table's {@code _history} table: a version is inserted once its row changes again. */
    private final class TableWriter {
        private final TableSchema schema;
        private final BatchedInsert<Ended> insert;
        /** The current version of each live row, not yet inserted. */
        private final Map<RowKey, Version> current = new HashMap<>();

        private record RowKey(NodeId node, long oid) {
        }

        private record Version(long id, long validFrom, RowChange change) {
        }

        /** A version to insert, with the position that ended it, or null while it is current. */
        private record Ended(Version version, Long validTo) {
        }

        TableWriter(TableSchema schema, Statement statement) throws SQLException {
            this.schema = schema;
            String history = quote(schema.name() + "_history");
            StringBuilder columns = new StringBuilder();
            StringBuilder viewColumns = new StringBuilder();
            for (String column : schema.columns()) {
                columns.append(", ").append(quote(column)).append(" VARCHAR");
                viewColumns.append(", ").append(quote(column));
            }
            ddl(statement, "CREATE TABLE " + history + "(version_id BIGINT PRIMARY KEY, node VARCHAR NOT NULL,"
                    + " oid BIGINT NOT NULL, valid_from BIGINT NOT NULL, valid_to BIGINT" + columns + ")");
            statement.execute("CREATE INDEX " + quote(schema.name() + "_history_from") + " ON " + history + "(valid_from)");
            ddl(statement, "CREATE VIEW " + quote(schema.name()) + " AS SELECT node, oid" + viewColumns + " FROM "
                    + history + " WHERE valid_to IS NULL");
            insert = new BatchedInsert<>(history, 5 + schema.columns().size(), this::setVersion);
        }

        void apply(long position, RowChange change) throws SQLException {
            RowKey key = new RowKey(change.node(), change.oid());
            Version previous = current.remove(key);
            if (previous != null) {
                insert(previous, position);
            }
            if (change.kind() != RowChange.Kind.DELETE) {
                current.put(key, new Version(nextVersionId++, position, change));
            }
        }

        /** Inserts the versions still current at the end of the check, with no valid_to. */
        void writeCurrent() throws SQLException {
            for (Version version : current.values()) {
                insert(version, null);
            }
            current.clear();
        }

        private void insert(Version version, Long validTo) throws SQLException {
            insert.add(new Ended(version, validTo));
        }

        private void setVersion(PreparedStatement statement, int offset, Ended ended) throws SQLException {
            Version version = ended.version();
            RowChange change = version.change();
            statement.setLong(offset + 1, version.id());
            statement.setString(offset + 2, change.node().value());
            statement.setLong(offset + 3, change.oid());
            statement.setLong(offset + 4, version.validFrom());
            if (ended.validTo() == null) {
                statement.setNull(offset + 5, Types.BIGINT);
            } else {
                statement.setLong(offset + 5, ended.validTo());
            }
            int index = offset + 6;
            for (String column : schema.columns()) {
                statement.setString(index++, readable(change.values().get(column)));
            }
        }

        void flush() throws SQLException {
            insert.flush();
        }
    }
}
