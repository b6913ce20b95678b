package dev.deja.check.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The H2 history: exact round trips, as-of queries, completeness, schema changes, read-only use. */
class H2StateHistoryIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final List<TableSchema> SCHEMAS = List.of(new TableSchema("Agent", "x.Agent", List.of("round", "value")),
            new TableSchema("Peer", "x.Peer", List.of("items")));

    @TempDir
    Path trace;

    private static CheckedEvent event(long position, NodeId node) {
        return new CheckedEvent(position, node, 1, position, position + 10, 1000 + position, "receive",
                Optional.of("Begin"), Optional.of(N2));
    }

    private static Map<String, Object> agent(Object round, Object value) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("round", round);
        values.put("value", value);
        return values;
    }

    /** A whole check of {@link #SCHEMAS} that stores {@code steps}. */
    private static void storeCheck(H2StateHistory history, List<StateStep> steps) {
        history.beginCheck(SCHEMAS);
        steps.forEach(history::append);
        history.finishCheck();
    }

    private List<StateStep> sampleSteps() {
        return List.of(
                new StateStep(event(0, N1), List.of(new RowChange("Agent", RowChange.Kind.INSERT, N1, 1, agent(0L, null)))),
                new StateStep(event(1, N2), List.of(new RowChange("Agent", RowChange.Kind.INSERT, N2, 2, agent(0L, null)),
                        new RowChange("Peer", RowChange.Kind.INSERT, N2, 3, Map.of("items",
                                List.of(1L, 2.5, "x", true, Map.of("k", List.of()), Double.NaN, Double.NEGATIVE_INFINITY))))),
                new StateStep(event(2, N1), List.of()),
                new StateStep(event(3, N1), List.of(new RowChange("Agent", RowChange.Kind.UPDATE, N1, 1, agent(5L, "v-n1")))),
                new StateStep(event(4, N2), List.of(new RowChange("Peer", RowChange.Kind.DELETE, N2, 3, Map.of()))));
    }

    @Test
    void replaceViolations_withTheStoredOnes_leavesTheRows_andOthersReplaceThem() {
        Violation first = new Violation("p", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event(3, N1),
                Optional.empty(), Map.of("decision", "v-n1"), "");
        Violation second = new Violation("q", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event(4, N2),
                Optional.empty(), Map.of("decision", "v-n2"), "");
        Violation secondElsewhere = new Violation("q", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event(2, N1),
                Optional.empty(), Map.of("decision", "v-n2"), "");
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
            history.replaceViolations(List.of(first, second));
        }
        List<List<String>> rows = QueryResult.query(trace, "SELECT id, predicate, position FROM violations ORDER BY id").rows();
        assertThat(rows).hasSize(2);
        // The same findings again (a re-check that found what the check before it did): the rows stay, ids included.
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.replaceViolations(List.of(first, second));
            assertThat(history.lastViolations()).contains(List.of(first, second));
        }
        assertThat(QueryResult.query(trace, "SELECT id, predicate, position FROM violations ORDER BY id").rows())
                .isEqualTo(rows);
        // One finding elsewhere, then the same ones in another order: replaced each time.
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.replaceViolations(List.of(first, secondElsewhere));
            assertThat(history.lastViolations()).contains(List.of(first, secondElsewhere));
            history.replaceViolations(List.of(secondElsewhere, first));
            assertThat(history.lastViolations()).contains(List.of(secondElsewhere, first));
            history.replaceViolations(List.of());
            assertThat(history.lastViolations()).contains(List.of());
        }
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM violations").rows()).containsExactly(List.of("0"));
    }

    @Test
    void storedSteps_replayBackExactly_andAsOfQueriesSeeEachVersion() {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(SCHEMAS);
            sampleSteps().forEach(history::append);
            history.recordViolation(new Violation("p", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event(3, N1),
                    Optional.empty(), Map.of("decision", "v-n1"), ""));
            assertThat(history.hasCompleteHistory(SCHEMAS)).as("complete before finishCheck").isFalse();
            history.finishCheck();
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            assertThat(history.hasCompleteHistory(SCHEMAS)).isTrue();
            assertThat(history.hasCompleteHistory(List.of(SCHEMAS.getFirst()))).as("other declarations").isFalse();
            List<StateStep> back = new ArrayList<>();
            assertThat(history.replayHistory(0, back::add)).isEqualTo(5);
            assertThat(back).isEqualTo(sampleSteps());
            List<StateStep> tail = new ArrayList<>();
            history.replayHistory(3, tail::add);
            assertThat(tail).isEqualTo(sampleSteps().subList(3, 5));
            assertThat(history.lastViolations().orElseThrow()).singleElement()
                    .satisfies(v -> assertThat(v.aux()).containsEntry("decision", "v-n1"));
        }
        String asOf = "SELECT node, round, \"value\" FROM agent_history WHERE valid_from <= %d"
                + " AND (valid_to IS NULL OR valid_to > %d) ORDER BY node";
        assertThat(QueryResult.query(trace, asOf.formatted(2, 2)).rows())
                .containsExactly(Arrays.asList("n1", "0", null), Arrays.asList("n2", "0", null));
        assertThat(QueryResult.query(trace, asOf.formatted(3, 3)).rows().getFirst()).containsExactly("n1", "5", "v-n1");
        assertThat(QueryResult.query(trace, "SELECT items FROM peer_history WHERE valid_to = 4").rows())
                .containsExactly(List.of("[1,2.5,\"x\",true,{\"k\":[]},\"NaN\",\"-Infinity\"]"));
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM peer").rows()).containsExactly(List.of("0"));
    }

    @Test
    void aNewCheck_replacesTheHistory_andAnUnfinishedOneIsNotReusable() {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
            List<TableSchema> other = List.of(new TableSchema("Leader", "x.Leader", List.of("round")));
            history.beginCheck(other);
            history.append(sampleSteps().get(2));
            assertThat(history.hasCompleteHistory(SCHEMAS)).isFalse();
            assertThat(history.hasCompleteHistory(other)).isFalse();
            // The latest check's findings, even unfinished (see lastViolations): none yet.
            assertThat(history.lastViolations()).contains(List.of());
        }
        assertThatThrownBy(() -> QueryResult.query(trace, "SELECT * FROM agent"))
                .isInstanceOf(CheckDatabaseException.class).hasMessageContaining("the tables are:")
                .hasMessageContaining("leader_history");
    }

    @Test
    void randomSteps_roundTripExactly() {
        long seed = Long.getLong("deja.seed", System.nanoTime());
        System.out.println("H2StateHistoryIT.randomSteps seed " + seed + " (reproduce: -Ddeja.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        List<StateStep> steps = new ArrayList<>();
        Map<Long, NodeId> live = new LinkedHashMap<>();
        for (long position = 0; position < 3_000; position++) {
            NodeId node = random.nextBoolean() ? N1 : N2;
            List<RowChange> changes = new ArrayList<>();
            for (int i = random.nextInt(3); i > 0; i--) {
                long oid = random.nextLong(1, 40);
                NodeId owner = live.get(oid);
                if (owner == null) {
                    live.put(oid, node);
                    changes.add(new RowChange("Agent", RowChange.Kind.INSERT, node, oid, agent(randomValue(random), randomValue(random))));
                } else if (random.nextInt(4) == 0) {
                    live.remove(oid);
                    changes.add(new RowChange("Agent", RowChange.Kind.DELETE, owner, oid, Map.of()));
                } else if (changes.stream().noneMatch(c -> c.oid() == oid)) {
                    changes.add(new RowChange("Agent", RowChange.Kind.UPDATE, owner, oid, agent(randomValue(random), randomValue(random))));
                }
            }
            steps.add(new StateStep(event(position, node), changes));
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, steps);
            List<StateStep> back = new ArrayList<>();
            history.replayHistory(0, back::add);
            assertThat(back).as("seed %d", seed).isEqualTo(steps);
        }
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM agent").rows())
                .as("current rows, seed %d", seed).containsExactly(List.of(Integer.toString(live.size())));
        // Every event, once (they are inserted many to a statement, the rest one by one).
        assertThat(QueryResult.query(trace, "SELECT COUNT(*), COUNT(DISTINCT position), SUM(position) FROM events").rows())
                .containsExactly(List.of("3000", "3000", Long.toString(2999L * 3000 / 2)));
        StateStep sample = steps.get(2_999);
        assertThat(QueryResult.query(trace, "SELECT node, lamport, at_millis, type, message_type, from_node FROM events"
                + " WHERE position = 2999").rows()).containsExactly(List.of(sample.event().node().value(),
                Long.toString(sample.event().lamport()), Long.toString(sample.event().atMillis()), "receive", "Begin", "n2"));
        // Every version's validity: the rows as of a position are the rows the steps up to it left.
        Map<Long, Map<String, Object>> rows = new LinkedHashMap<>();
        int next = 0;
        for (long position : new long[] {0, 1, 17, 500, 1499, 2998, 2999}) {
            for (; next <= position; next++) {
                for (RowChange change : steps.get(next).changes()) {
                    if (change.kind() == RowChange.Kind.DELETE) {
                        rows.remove(change.oid());
                    } else {
                        rows.put(change.oid(), change.values());
                    }
                }
            }
            List<List<String>> expected = rows.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .map(e -> Arrays.asList(Long.toString(e.getKey()), H2StateHistory.readable(e.getValue().get("round")),
                            H2StateHistory.readable(e.getValue().get("value")))).toList();
            assertThat(QueryResult.query(trace, ("SELECT oid, round, \"value\" FROM agent_history WHERE valid_from <= %d"
                    + " AND (valid_to IS NULL OR valid_to > %d) ORDER BY oid").formatted(position, position)).rows())
                    .as("rows as of %d, seed %d", position, seed).isEqualTo(expected);
        }
    }

    @Test
    void theQueryTables_areBuiltFromTheStepsByTheFirstQueryAfterEachCheck() throws Exception {
        List<String> notices = new ArrayList<>();
        for (int check = 0; check < 2; check++) {
            int steps = check == 0 ? 5 : 2;
            try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                storeCheck(history, sampleSteps().subList(0, steps));
                assertThat(history.needsQueryTables()).as("after check %d", check).isTrue();
                if (check == 1) {
                    // What a build killed half-way leaves: it is started again, not trusted.
                    try (java.sql.Statement statement = history.connection().createStatement()) {
                        statement.execute("CREATE TABLE events(position BIGINT)");
                        statement.execute("INSERT INTO events VALUES (99)");
                    }
                    history.connection().commit();
                }
            }
            assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM events", notices::add).rows())
                    .containsExactly(List.of(Integer.toString(steps)));
            // Agent versions: n1's and n2's first ones, and n1's update at event 3 when all five steps were stored.
            assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM agent_history", notices::add).rows())
                    .containsExactly(List.of(check == 0 ? "3" : "2"));
            assertThat(notices).as("one build per check").hasSize(check + 1);
        }
        assertThat(notices.getFirst()).contains("building the query tables", H2StateHistory.databaseFile(trace).toString());
    }

    @Test
    void anUnfinishedCheck_keepsTheRowsOfEveryStepItStored() {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(SCHEMAS);
            sampleSteps().subList(0, 4).forEach(history::append);
        }
        assertThat(QueryResult.query(trace, "SELECT node, round, \"value\" FROM agent ORDER BY node").rows())
                .containsExactly(Arrays.asList("n1", "5", "v-n1"), Arrays.asList("n2", "0", null));
        assertThat(QueryResult.query(trace, "SELECT COUNT(*) FROM events").rows()).containsExactly(List.of("4"));
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            assertThat(history.hasCompleteHistory(SCHEMAS)).isFalse();
        }
    }

    @Test
    void replayHistoryAt_givesTheFirstStepThosePositionsAndTheStepsChangingThoseTables_readingOnlyTheirChunks() {
        List<StateStep> steps = new ArrayList<>();
        for (long position = 0; position < 7_000; position++) {
            // Peer changes at two steps of the third chunk of 2,000 steps only, Agent at every other step.
            List<RowChange> changes = position == 4_500 || position == 4_501
                    ? List.of(new RowChange("Peer", RowChange.Kind.INSERT, N2, position, Map.of("items", List.of())))
                    : List.of(new RowChange("Agent", RowChange.Kind.UPDATE, N1, 1, agent(position, null)));
            steps.add(new StateStep(event(position, N1), changes));
        }
        List<StateStep> given = new ArrayList<>();
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, steps);

            long count = history.replayHistoryAt(java.util.Set.of(6_500L), java.util.Set.of("Peer"),
                    java.util.Set.of("Peer"), given::add);

            assertThat(count).isEqualTo(given.size());
        }
        assertThat(given).extracting(step -> step.event().position()).contains(0L, 4_500L, 4_501L, 6_500L)
                .isSorted();
        // The first chunk gives its first step, the one with the position that step only, the one changing Peer every
        // step (the caller passes over the others); the second chunk is not read.
        assertThat(given).hasSize(1 + 2_000 + 1);
        assertThat(given).allSatisfy(step -> assertThat(step.changes()).allSatisfy(change ->
                assertThat(change.table()).isEqualTo("Peer")));
        assertThat(given.stream().filter(step -> !step.changes().isEmpty()).map(step -> step.event().position()))
                .containsExactly(4_500L, 4_501L);
    }

    /** With no table's changes wanted, each position's chunk is looked up alone: the same steps as a scan gives. */
    @Test
    void replayHistoryAt_noTableChangesWanted_givesTheFirstStepAndThosePositionsOnly() {
        List<StateStep> steps = new ArrayList<>();
        for (long position = 0; position < 7_000; position++) {
            steps.add(new StateStep(event(position, N1),
                    List.of(new RowChange("Agent", RowChange.Kind.UPDATE, N1, 1, agent(position, null)))));
        }
        List<StateStep> given = new ArrayList<>();
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, steps);
            // 1,999 and 2,000 end one chunk and begin the next; 9,000 is past the last step.
            long count = history.replayHistoryAt(java.util.Set.of(1_999L, 2_000L, 6_999L, 9_000L), java.util.Set.of(),
                    java.util.Set.of("Agent"), given::add);
            assertThat(count).isEqualTo(given.size());
        }
        assertThat(given).extracting(step -> step.event().position()).containsExactly(0L, 1_999L, 2_000L, 6_999L);
        assertThat(given).allSatisfy(step -> assertThat(step.changes()).hasSize(1));
    }

    @Test
    void derivedValues_ofManyChanges_readBackExactly() {
        List<dev.deja.check.DerivedValues.Change> changes = new ArrayList<>();
        for (long position = 0; position < 10_000; position++) {
            changes.add(new dev.deja.check.DerivedValues.Change(position, position % 3 == 0 ? null : "(" + position + ",)",
                    position % 5 == 0 ? List.of("Agent", "clock") : null));
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
            history.storeDerivedValues(Map.of("clock", new dev.deja.check.DerivedValues("f1", changes),
                    "other", new dev.deja.check.DerivedValues("f2", changes.subList(0, 3))), java.util.Set.of());
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            assertThat(history.derivedChanges("clock")).isEqualTo(changes);
            assertThat(history.derivedChanges("other")).isEqualTo(changes.subList(0, 3));
            assertThat(history.derivedFingerprints()).containsEntry("clock", "f1").containsEntry("other", "f2");
            // Stored again, keeping one: the other's changes are replaced.
            history.storeDerivedValues(Map.of("other", new dev.deja.check.DerivedValues("f3", changes.subList(5, 6))),
                    java.util.Set.of("clock"));
            assertThat(history.derivedChanges("other")).isEqualTo(changes.subList(5, 6));
            assertThat(history.derivedChanges("clock")).isEqualTo(changes);
        }
    }

    @Test
    void derivedChanges_readAgain_areDecodedOnce_andNeverStale() {
        List<dev.deja.check.DerivedValues.Change> first = new ArrayList<>();
        List<dev.deja.check.DerivedValues.Change> second = new ArrayList<>();
        for (long position = 0; position < 9_000; position++) {
            first.add(new dev.deja.check.DerivedValues.Change(position, Long.toString(position), null));
            // As many changes and chunks, one value differing in the last chunk.
            second.add(new dev.deja.check.DerivedValues.Change(position, Long.toString(position == 8_500 ? -1 : position),
                    null));
        }
        for (List<dev.deja.check.DerivedValues.Change> stored : List.of(first, second)) {
            try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                storeCheck(history, sampleSteps());
                history.storeDerivedValues(Map.of("clock", new dev.deja.check.DerivedValues("f1", stored)),
                        java.util.Set.of());
            }
            try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                assertThat(history.derivedChanges("clock")).isEqualTo(stored);
                long reused = DecodedDerivedChanges.reused();
                List<dev.deja.check.DerivedValues.Change> again = history.derivedChanges("clock");
                assertThat(DecodedDerivedChanges.reused()).as("decoded once").isEqualTo(reused + 1);
                assertThat(again).isEqualTo(stored);
                assertThatThrownBy(() -> again.add(again.getFirst())).isInstanceOf(UnsupportedOperationException.class);
            }
        }
    }

    @Test
    void reChecksInQuickSuccession_reuseTheFilesSpace_soItDoesNotGrow() throws Exception {
        List<dev.deja.check.DerivedValues.Change> changes = new ArrayList<>();
        for (long position = 0; position < 20_000; position++) {
            changes.add(new dev.deja.check.DerivedValues.Change(position, "(" + position + ", 'value " + position + "')",
                    null));
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
        }
        // Each re-check that evaluates a derived value stores its changes again, a few seconds after the last.
        List<Long> sizes = new ArrayList<>();
        for (int recheck = 0; recheck < 12; recheck++) {
            try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                history.storeDerivedValues(Map.of("clock", new dev.deja.check.DerivedValues("f" + recheck, changes)),
                        java.util.Set.of());
            }
            sizes.add(Files.size(H2StateHistory.databaseFile(trace)));
        }
        // H2's default retention (45 s) kept every rewritten copy: the file grew by one copy per re-check.
        assertThat(sizes.getLast()).as("file sizes after each re-check: %s", sizes).isLessThan(2 * sizes.get(1));
    }

    @Test
    void repeatedChecks_startANewFileEachTime_soItDoesNotGrow() throws Exception {
        List<StateStep> steps = new ArrayList<>();
        for (long position = 0; position < 20_000; position++) {
            steps.add(new StateStep(event(position, N1), List.of(new RowChange("Agent", RowChange.Kind.UPDATE, N1,
                    position % 50, agent(position, "value " + position)))));
        }
        List<Long> sizes = new ArrayList<>();
        for (int check = 0; check < 4; check++) {
            try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                storeCheck(history, steps);
            }
            sizes.add(java.nio.file.Files.size(H2StateHistory.databaseFile(trace)));
        }
        // Dropping the tables instead left the old pages in the file: it grew with every check.
        assertThat(sizes).as("file sizes").allSatisfy(size -> assertThat(size).isLessThan(sizes.getFirst() * 5 / 4));
    }

    @Test
    void aCheckWhileAnotherConnectionIsOpen_replacesTheTablesInTheSameFile() {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
            try (H2StateHistory reader = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
                assertThat(reader.hasCompleteHistory(SCHEMAS)).isTrue();
                storeCheck(history, List.of(sampleSteps().getFirst()));
                List<StateStep> back = new ArrayList<>();
                reader.replayHistory(0, back::add);
                assertThat(back).containsExactly(sampleSteps().getFirst());
            }
        }
    }

    @Test
    void aHistoryOfAnotherFormat_isRefusedReadOnly_andRebuiltByTheNextCheck() throws Exception {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            storeCheck(history, sampleSteps());
            try (java.sql.Statement statement = history.connection().createStatement()) {
                statement.execute("UPDATE deja_meta SET meta_value = '1' WHERE meta_key = 'format'");
            }
        }
        assertThatThrownBy(() -> H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY))
                .isInstanceOf(CheckDatabaseException.class)
                .hasMessageContaining("written by another version of Deja (format 1, this one reads " + H2StateHistory.FORMAT)
                .hasMessageContaining("run 'deja check'");
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            assertThat(history.hasCompleteHistory(SCHEMAS)).as("never reused").isFalse();
            // What a re-check says when it replays instead.
            assertThat(history.unservable(SCHEMAS)).contains("the stored history was written by another version of"
                    + " Deja (format 1, this one reads " + H2StateHistory.FORMAT + ")");
            assertThat(history.lastViolations()).isEmpty();
            storeCheck(history, sampleSteps());
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            assertThat(history.hasCompleteHistory(SCHEMAS)).isTrue();
        }
    }

    private static Object randomValue(SplittableRandom random) {
        return switch (random.nextInt(7)) {
            case 0 -> null;
            case 1 -> random.nextLong();
            case 2 -> random.nextDouble();
            case 3 -> "s" + random.nextInt(100);
            case 4 -> random.nextBoolean();
            case 5 -> List.of(random.nextLong(10), "x");
            default -> Map.of("a", random.nextLong(5));
        };
    }

    @Test
    void readOnlyOpen_withoutAPriorCheck_isRefusedClearly() {
        assertThatThrownBy(() -> H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY))
                .isInstanceOf(CheckDatabaseException.class)
                .hasMessageContaining("no check database at").hasMessageContaining("run 'deja check");
        assertThatThrownBy(() -> QueryResult.query(trace, "DROP TABLE events"))
                .hasMessageContaining("no check database at");
        assertThatThrownBy(() -> H2StateHistory.open(trace.resolve("a;b"), H2StateHistory.Mode.READ_WRITE))
                .hasMessageContaining("contains ';'");
        assertThat(Arrays.asList(trace.toFile().list())).as("nothing written into the trace").isEmpty();
    }
}
