package dev.deja.check.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hardening of the state history: a database planted in a trace never runs (its trigger's marker file must not
 * appear), H2 loads no user-defined Java, and {@code deja sql}'s queries are read-only by privilege.
 */
class HistoryHardeningIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final List<TableSchema> SCHEMAS = List.of(new TableSchema("Agent", "x.Agent", List.of("round")));

    @TempDir
    Path directory;

    @BeforeAll
    static void loadHistoryClass() {
        // Its static initializer configures H2 before H2's first class loads, as in the deja command.
        assertThat(H2StateHistory.databaseFile(Path.of("t"))).isNotNull();
    }

    /** A trace whose check/history.mv.db holds a trigger whose Java source writes {@code marker} when it loads. */
    private static Path plantTrigger(Path trace, Path marker) throws Exception {
        Path checkDirectory = trace.resolve(H2StateHistory.DIRECTORY);
        Files.createDirectories(checkDirectory);
        String url = "jdbc:h2:file:" + checkDirectory.resolve(H2StateHistory.NAME) + ";DB_CLOSE_ON_EXIT=FALSE";
        try (Connection connection = DriverManager.getConnection(url, "deja", "");
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE deja_meta(meta_key VARCHAR PRIMARY KEY, meta_value VARCHAR)");
            statement.execute("INSERT INTO deja_meta VALUES ('format', '" + H2StateHistory.FORMAT + "'), ('complete', 'true'),"
                    + " ('schemas', '[]')");
            statement.execute("CREATE TRIGGER planted BEFORE SELECT ON deja_meta AS $$"
                    + "org.h2.api.Trigger create() {"
                    + " try { java.nio.file.Files.writeString(java.nio.file.Path.of(\"" + marker + "\"), \"ran\"); }"
                    + " catch (Exception e) { throw new RuntimeException(e); }"
                    + " return new org.h2.api.Trigger() { public void fire(java.sql.Connection c, Object[] o, Object[] n) { } };"
                    + " }$$");
        }
        // Creating the trigger ran it once, here: only a later open counts.
        Files.deleteIfExists(marker);
        return trace;
    }

    @Test
    void plantedTrigger_runsWhenOpenedPlainly_soTheAttackIsReal() throws Exception {
        Path marker = directory.resolve("marker");
        Path trace = plantTrigger(directory.resolve("trace"), marker);
        String url = "jdbc:h2:file:" + trace.resolve("check").resolve("history") + ";DB_CLOSE_ON_EXIT=FALSE";
        try (Connection ignored = DriverManager.getConnection(url, "deja", "")) {
            assertThat(marker).as("the planted trigger runs when H2 opens the file").exists();
        }
    }

    @Test
    void plantedTrigger_neverRuns_whenACheckOpensTheHistory() throws Exception {
        Path marker = directory.resolve("marker");
        Path trace = plantTrigger(directory.resolve("trace"), marker);
        List<String> notices = new ArrayList<>();
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE, notices::add)) {
            assertThat(history.hasCompleteHistory(List.of())).as("an ignored database holds nothing").isFalse();
            history.beginCheck(SCHEMAS);
            history.append(step(0));
            history.finishCheck();
        }
        assertThat(marker).doesNotExist();
        assertThat(notices).singleElement().asString()
                .isEqualTo("deja: " + H2StateHistory.databaseFile(trace) + " was not written by Deja for this user (its"
                        + " seal history.seal is missing or does not match), so it is not opened; it is replaced by the"
                        + " history this check stores");
        assertThat(H2StateHistory.isSealed(trace)).as("the rebuilt history is sealed").isTrue();
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM events").rows()).containsExactly(List.of("1"));
        assertThat(marker).doesNotExist();
    }

    @Test
    void plantedTrigger_neverRuns_whenSqlQueriesIt() throws Exception {
        Path marker = directory.resolve("marker");
        Path trace = plantTrigger(directory.resolve("trace"), marker);
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT * FROM deja_meta"))
                .isInstanceOf(CheckDatabaseException.class)
                .hasMessage(H2StateHistory.databaseFile(trace) + " was not written by Deja for this user (its seal"
                        + " history.seal is missing or does not match), so it is not opened; run 'deja check " + trace
                        + " SCRIPT' to rebuild it");
        assertThat(marker).doesNotExist();
    }

    @Test
    void plantedTrigger_withAForgedSeal_neverRuns() throws Exception {
        Path marker = directory.resolve("marker");
        Path trace = plantTrigger(directory.resolve("trace"), marker);
        Files.writeString(trace.resolve("check").resolve(HistorySeal.FILE), "deja-history-seal 1 " + "ab".repeat(32) + "\n");
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT * FROM deja_meta"))
                .hasMessageContaining("was not written by Deja for this user");
        assertThat(marker).doesNotExist();
    }

    @Test
    void historySealedWithAnotherUsersKey_isNotOpened() throws Exception {
        Path trace = directory.resolve("theirs");
        Path theirKey = directory.resolve("their.key");
        Files.write(theirKey, new byte[32]);
        String ours = System.getProperty("deja.historyKey");
        System.setProperty("deja.historyKey", theirKey.toString());
        try {
            storeOneStep(trace);
        } finally {
            if (ours == null) {
                System.clearProperty("deja.historyKey");
            } else {
                System.setProperty("deja.historyKey", ours);
            }
        }
        // Copied to another place (another person's machine): this user's key does not match their seal.
        Path copy = copyHistory(trace, directory.resolve("copy"));
        assertThat(H2StateHistory.isSealed(copy)).isFalse();
        assertThatThrownBy(() -> QueryResult.query(copy, "SELECT 1")).hasMessageContaining("was not written by Deja for this user");
    }

    @Test
    void historyChangedAfterSealing_isNotOpened() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        Path copy = directory.resolve("copy");
        Files.createDirectories(copy.resolve("check"));
        Files.copy(trace.resolve("check").resolve(HistorySeal.FILE), copy.resolve("check").resolve(HistorySeal.FILE));
        byte[] bytes = Files.readAllBytes(H2StateHistory.databaseFile(trace));
        bytes[bytes.length / 2] ^= 1;
        Files.write(H2StateHistory.databaseFile(copy), bytes);
        assertThat(H2StateHistory.isSealed(copy)).isFalse();
    }

    @Test
    void sealedHistory_inANewProcess_isAcceptedByItsStamp_withoutHashingTheFile() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        HistorySeal.forgetVerified();
        long hashed = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(trace)).isTrue();
        assertThat(HistorySeal.filesHashed()).isEqualTo(hashed);
    }

    @Test
    void historyChangedInPlace_withItsSizeAndModificationTimeKept_isHashedAndNotOpened() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        Path file = H2StateHistory.databaseFile(trace);
        java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(file);
        long size = Files.size(file);
        try (java.io.RandomAccessFile bytes = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            bytes.seek(size / 2);
            int old = bytes.read();
            bytes.seek(size / 2);
            bytes.write(old ^ 1);
        }
        Files.setLastModifiedTime(file, modified);
        assertThat(Files.size(file)).isEqualTo(size);
        HistorySeal.forgetVerified();
        long hashed = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(trace)).isFalse();
        assertThat(HistorySeal.filesHashed()).as("the change time moved: the file was hashed").isEqualTo(hashed + 1);
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT 1")).hasMessageContaining("was not written by Deja for this user");
    }

    @Test
    void sealedHistory_copiedWithItsTimes_isHashedOnce_andAccepted() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        Path copy = copyHistory(trace, directory.resolve("copy"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        HistorySeal.forgetVerified();
        long hashed = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(copy)).isTrue();
        assertThat(H2StateHistory.isSealed(copy)).isTrue();
        assertThat(HistorySeal.filesHashed()).as("another inode: hashed, then known to this process").isEqualTo(hashed + 1);
    }

    @Test
    void sealOfTheFirstFormat_isStillAccepted_byHashingTheFile() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        byte[] fileMac = hmac(Files.readAllBytes(H2StateHistory.databaseFile(trace)));
        Files.writeString(trace.resolve("check").resolve(HistorySeal.FILE), "deja-history-seal 1 " + hex(fileMac) + "\n");
        HistorySeal.forgetVerified();
        long hashed = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(trace)).isTrue();
        assertThat(HistorySeal.filesHashed()).isEqualTo(hashed + 1);
    }

    @Test
    void sealOfTheSecondFormat_isStillAccepted_byItsStamp() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        Path file = H2StateHistory.databaseFile(trace);
        byte[] fileMac = hmac(Files.readAllBytes(file));
        String stamp = HistorySeal.stamp(file);
        byte[] stampMac = hmac(concat(("deja-history-stamp " + stamp + " ").getBytes(StandardCharsets.US_ASCII), fileMac));
        Files.writeString(trace.resolve("check").resolve(HistorySeal.FILE),
                "deja-history-seal 2 " + hex(fileMac) + " " + stamp + " " + hex(stampMac) + "\n");
        HistorySeal.forgetVerified();
        long hashed = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(trace)).isTrue();
        assertThat(HistorySeal.filesHashed()).isEqualTo(hashed);
    }

    @Test
    void historyChanged_withItsNewStampWrittenIntoTheSeal_isNotAccepted() throws Exception {
        Path trace = directory.resolve("trace");
        List<String> lines = sealOfOneStoredStep(trace);
        assertThat(lines.getFirst()).isEqualTo("deja-history-seal 3");
        assertThat(lines.get(1)).startsWith("stamp ");
        Path file = H2StateHistory.databaseFile(trace);
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 1;
        Files.write(file, bytes);
        // The seal's HMAC covers its stamp: a stamp edited into the seal makes the seal fail, not pass.
        lines.set(1, "stamp " + HistorySeal.stamp(file));
        Files.writeString(trace.resolve("check").resolve(HistorySeal.FILE), String.join("\n", lines) + "\n");
        HistorySeal.forgetVerified();
        assertThat(H2StateHistory.isSealed(trace)).isFalse();
    }

    @Test
    void historyRewritten_isSealedAgain_hashingOnlyTheBlocksThatChanged() throws Exception {
        Path trace = directory.resolve("trace");
        storeSteps(trace, 40_000);
        Path file = H2StateHistory.databaseFile(trace);
        long size = Files.size(file);
        assertThat(size).as("a history of many blocks").isGreaterThan(8L * HistorySeal.MIN_BLOCK_SIZE);
        // A new process verifies the seal by its stamp (nothing hashed), then writes a little and seals it again.
        HistorySeal.forgetVerified();
        assertThat(H2StateHistory.isSealed(trace)).isTrue();
        long hashed = HistorySeal.bytesHashed();
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.replaceViolations(List.of());
        }
        long rehashed = HistorySeal.bytesHashed() - hashed;
        assertThat(rehashed).as("bytes hashed to seal a %d-byte file again", Files.size(file))
                .isPositive().isLessThan(Files.size(file) / 2);
        // The digests kept for the unchanged blocks are right: a copy (another inode, so hashed whole) is accepted,
        // and a copy with one byte changed is not.
        Path copy = copyHistory(trace, directory.resolve("copy"));
        HistorySeal.forgetVerified();
        long files = HistorySeal.filesHashed();
        assertThat(H2StateHistory.isSealed(copy)).isTrue();
        assertThat(HistorySeal.filesHashed()).isEqualTo(files + 1);
        for (long at : new long[] {0, size / 3, Files.size(file) - 1}) {
            Path changed = copyHistory(trace, directory.resolve("changed-" + at));
            byte[] bytes = Files.readAllBytes(H2StateHistory.databaseFile(changed));
            bytes[(int) at] ^= 1;
            Files.write(H2StateHistory.databaseFile(changed), bytes);
            assertThat(H2StateHistory.isSealed(changed)).as("one byte changed at %d", at).isFalse();
        }
    }

    @Test
    void sealWithABlockLeftOut_isNotAccepted() throws Exception {
        Path trace = directory.resolve("trace");
        storeSteps(trace, 20_000);
        List<String> lines = new ArrayList<>(Files.readAllLines(trace.resolve("check").resolve(HistorySeal.FILE)));
        assertThat(lines.size()).as("header, stamp, sizes, blocks, mac").isGreaterThan(6);
        lines.remove(4);
        Files.write(trace.resolve("check").resolve(HistorySeal.FILE), lines);
        HistorySeal.forgetVerified();
        assertThat(H2StateHistory.isSealed(trace)).isFalse();
    }

    @Test
    void h2_allowsOnlyItsOwnClasses() {
        assertThat(org.h2.engine.SysProperties.ALLOWED_CLASSES).isEqualTo(H2StateHistory.ALLOWED_CLASSES);
    }

    @Test
    void h2_refusesAnAliasNamingAJavaMethod() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:alias", "sa", "");
             Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.execute("CREATE ALIAS GETENV FOR 'java.lang.System.getenv'"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("java.lang.System");
        }
    }

    @Test
    void h2_refusesATriggerNamingAJavaClass() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:trigger", "sa", "");
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE t(x INT)");
            assertThatThrownBy(() -> statement.execute("CREATE TRIGGER tr BEFORE INSERT ON t CALL 'java.lang.Thread'"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("java.lang.Thread");
        }
    }

    @Test
    void h2_refusesToDeserializeAJavaObjectOfAnotherClass() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new Date(0));
        }
        assertThatThrownBy(() -> org.h2.util.JdbcUtils.deserialize(bytes.toByteArray(), null))
                .hasMessageContaining("filter status: REJECTED");
    }

    /** Each attack on {@code deja sql}: the query and a file it would create, if any. */
    static Stream<Arguments> sqlAttacks() {
        return Stream.of(
                Arguments.of("FILE_READ", "SELECT FILE_READ('/etc/hostname')", null),
                Arguments.of("CSVREAD", "SELECT * FROM CSVREAD('/etc/passwd')", null),
                Arguments.of("CSVWRITE", "SELECT CSVWRITE('OUT/x.csv', 'SELECT 1')", "x.csv"),
                Arguments.of("FILE_WRITE", "SELECT FILE_WRITE(CAST('x' AS VARBINARY), 'OUT/pwn.txt')", "pwn.txt"),
                Arguments.of("LINK_SCHEMA", "SELECT * FROM LINK_SCHEMA('L', '', 'jdbc:h2:mem:x', 'sa', '', 'PUBLIC')", null),
                Arguments.of("SCRIPT TO", "SCRIPT TO 'OUT/dump.sql'", "dump.sql"),
                Arguments.of("RUNSCRIPT", "RUNSCRIPT FROM 'OUT/none.sql'", null),
                Arguments.of("SHUTDOWN", "SHUTDOWN", null),
                Arguments.of("CREATE ALIAS", "CREATE ALIAS E FOR 'java.lang.System.getenv'", null),
                Arguments.of("DROP TABLE", "DROP TABLE events", null),
                Arguments.of("INSERT", "INSERT INTO events(position, node) VALUES (99, 'x')", null),
                Arguments.of("SET", "SET EXCLUSIVE 1", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sqlAttacks")
    void sql_refusesByPrivilege(String name, String query, String createdFile) throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        QueryResult.query(trace, "SELECT 1"); // builds the query tables first, as the first query after a check does
        byte[] before = Files.readAllBytes(H2StateHistory.databaseFile(trace));
        assertThatThrownBy(() -> QueryResult.query(trace, query.replace("OUT", directory.toString())))
                .isInstanceOf(CheckDatabaseException.class)
                .hasMessageStartingWith("refused: queries may only read the check database's tables (")
                .hasMessageNotContaining("\n");
        if (createdFile != null) {
            assertThat(directory.resolve(createdFile)).doesNotExist();
        }
        assertThat(Files.readAllBytes(H2StateHistory.databaseFile(trace))).as("the database is unchanged").isEqualTo(before);
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM events").rows()).containsExactly(List.of("1"));
    }

    @Test
    void sql_runsExactlyOneStatement_shutdownAfterSemicolonIsRefusedUnrun() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT 1; SHUTDOWN"))
                .isInstanceOf(CheckDatabaseException.class)
                .hasMessage("the query holds 2 statements; give exactly one");
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT 1; /* c */ SELECT 2;"))
                .hasMessage("the query holds 2 statements; give exactly one");
        assertThatThrownBy(() -> QueryResult.query(trace, " ; "))
                .hasMessage("the query holds 0 statements; give exactly one");
        // A semicolon inside a string or a comment is not a second statement, and a trailing one is allowed.
        assertThat(QueryResult.query(trace, "SELECT 'a;b' AS x -- ; SHUTDOWN\n;").rows()).containsExactly(List.of("a;b"));
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM events").rows()).containsExactly(List.of("1"));
    }

    @Test
    void sql_readerUser_cannotShutDown_evenWithoutTheStatementCount() throws Exception {
        Path trace = directory.resolve("trace");
        storeOneStep(trace);
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY);
             Connection reader = history.readerConnection(); Statement statement = reader.createStatement()) {
            assertThatThrownBy(() -> statement.execute("SELECT 1; SHUTDOWN"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Admin rights are required");
            assertThat(reader.getMetaData().getUserName()).isEqualToIgnoringCase(H2StateHistory.READER);
        }
    }

    private static StateStep step(long position) {
        return new StateStep(new CheckedEvent(position, N1, 1, position, position + 1, 1000, "receive", Optional.empty(),
                Optional.empty()), List.of(new RowChange("Agent", RowChange.Kind.INSERT, N1, 1, Map.of("round", 1L))));
    }

    /** The history of {@code trace} and its seal, copied into {@code copy} as a trace of its own. */
    private static Path copyHistory(Path trace, Path copy, java.nio.file.CopyOption... options) throws java.io.IOException {
        Files.createDirectories(copy.resolve("check"));
        for (String name : List.of("history.mv.db", HistorySeal.FILE)) {
            Files.copy(trace.resolve("check").resolve(name), copy.resolve("check").resolve(name), options);
        }
        return copy;
    }

    /** Stores one step in {@code trace}'s history and returns the words of its seal. */
    private static List<String> sealOfOneStoredStep(Path trace) throws java.io.IOException {
        storeOneStep(trace);
        return new ArrayList<>(Files.readAllLines(trace.resolve("check").resolve(HistorySeal.FILE)));
    }

    private static void storeSteps(Path trace, int count) {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(SCHEMAS);
            for (int i = 0; i < count; i++) {
                history.append(step(i));
            }
            history.finishCheck();
        }
    }

    /** The HMAC-SHA256 of {@code bytes} under this user's history key, as the earlier seal formats hold it. */
    private static byte[] hmac(byte[] bytes) throws Exception {
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(Files.readAllBytes(HistorySeal.keyFile()), "HmacSHA256"));
        return mac.doFinal(bytes);
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static String hex(byte[] bytes) {
        return java.util.HexFormat.of().formatHex(bytes);
    }

    private static void storeOneStep(Path trace) {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(SCHEMAS);
            history.append(step(0));
            history.finishCheck();
        }
    }
}
