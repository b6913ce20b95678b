package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.RowChange;
import dev.deja.check.TableSchema;
import dev.deja.node.Exposed;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StateExtractorTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    enum Mode { LEADER, FOLLOWER }

    record Point(int x, String label) {
    }

    static class Replica {
        long acceptedRound;
        String value;
        Mode mode = Mode.FOLLOWER;
        Replica peer;
        Set<NodeId> voters = new HashSet<>();
        Point point = new Point(1, "a");
        List<Long> log = new ArrayList<>();
        TreeMap<String, Long> counts = new TreeMap<>();

        @Exposed
        int twice() {
            return (int) acceptedRound * 2;
        }
    }

    static final class SpecialReplica extends Replica {
    }

    static class Holder {
        final List<Replica> replicas = new ArrayList<>();
        final Map<String, Replica> byName = new LinkedHashMap<>();
        final byte[] blob = new byte[1000];
        final Map<Long, String> notWalked = new LinkedHashMap<>();
        Replica single;
    }

    private static StateExtractor extractor(String... columns) {
        return new StateExtractor(List.of(new TableSchema("Replica", Replica.class.getName(), List.of(columns))),
                StateExtractorTest.class.getClassLoader());
    }

    private static Replica replica(long acceptedRound) {
        Replica replica = new Replica();
        replica.acceptedRound = acceptedRound;
        return replica;
    }

    /** A holder with {@code inList} in its list and {@code single} in its own field. */
    private static Holder holding(Replica inList, Replica single) {
        Holder holder = new Holder();
        holder.replicas.add(inList);
        holder.single = single;
        return holder;
    }

    /** The oid of the one row among {@code changes} whose accepted round is {@code round}. */
    private static long oidOfRound(List<RowChange> changes, long round) {
        return changes.stream().filter(c -> c.values().get("accepted_round").equals(round)).findFirst().orElseThrow().oid();
    }

    @Test
    void extract_findsObjectsInFieldsListsAndMaps_withNormalizedValues() {
        StateExtractor extractor = extractor("accepted_round", "value", "mode", "peer", "voters", "point", "twice");
        Holder holder = new Holder();
        Replica a = new Replica();
        Replica b = new SpecialReplica();
        a.acceptedRound = 3;
        a.value = "x";
        a.peer = b;
        a.voters.add(N2);
        a.voters.add(N1);
        holder.replicas.add(a);
        holder.byName.put("b", b);
        List<RowChange> changes = extractor.extract(N1, holder);
        assertThat(changes).extracting(RowChange::kind).containsExactly(RowChange.Kind.INSERT, RowChange.Kind.INSERT);
        RowChange rowA = changes.stream().filter(c -> "x".equals(c.values().get("value"))).findFirst().orElseThrow();
        RowChange rowB = changes.stream().filter(c -> c != rowA).findFirst().orElseThrow();
        assertThat(rowA.values()).containsEntry("accepted_round", 3L).containsEntry("mode", "FOLLOWER")
                .containsEntry("peer", rowB.oid()).containsEntry("voters", List.of("n1", "n2"))
                .containsEntry("point", Map.of("x", 1L, "label", "a")).containsEntry("twice", 6L);
        assertThat(rowA.node()).isEqualTo(N1);
        assertThat(rowA.oid()).isNotEqualTo(rowB.oid());
    }

    @Test
    void extract_again_diffsIntoUpdatesAndDeletes_withStableOids() {
        StateExtractor extractor = extractor("accepted_round");
        Replica a = replica(0);
        Replica b = replica(1);
        Holder holder = holding(a, b);
        List<RowChange> first = extractor.extract(N1, holder);
        long oidA = oidOfRound(first, 0);
        assertThat(extractor.extract(N1, holder)).as("nothing changed").isEmpty();
        a.acceptedRound = 7;
        holder.single = null;
        Replica c = new Replica();
        holder.replicas.add(c);
        List<RowChange> second = extractor.extract(N1, holder);
        assertThat(second).extracting(RowChange::kind)
                .containsExactlyInAnyOrder(RowChange.Kind.DELETE, RowChange.Kind.UPDATE, RowChange.Kind.INSERT);
        RowChange update = second.stream().filter(x -> x.kind() == RowChange.Kind.UPDATE).findFirst().orElseThrow();
        assertThat(update.oid()).isEqualTo(oidA);
        assertThat(update.values()).containsEntry("accepted_round", 7L);
        RowChange insert = second.stream().filter(x -> x.kind() == RowChange.Kind.INSERT).findFirst().orElseThrow();
        assertThat(insert.oid()).as("oids are never reused").isNotIn(first.stream().map(RowChange::oid).toList());
    }

    @Test
    void extract_afterInPlaceChangesToColumnValues_reportsEachAsOneUpdate_andNothingElse() {
        StateExtractor extractor = extractor("accepted_round", "mode", "peer", "voters", "point", "log", "counts");
        Replica a = replica(0);
        Replica b = replica(1);
        Replica c = replica(2);
        Holder holder = holding(a, b);
        holder.replicas.add(c);
        extractor.extract(N1, holder);
        List<Map.Entry<String, Runnable>> steps = List.of(
                Map.entry("an element added to a list", () -> a.log.add(1L)),
                Map.entry("a list's element replaced", () -> a.log.set(0, 2L)),
                Map.entry("a sorted map's entry added", () -> a.counts.put("k", 2L)),
                Map.entry("a sorted map's value replaced", () -> a.counts.put("k", 3L)),
                Map.entry("a sorted map's key replaced", () -> {
                    a.counts.remove("k");
                    a.counts.put("j", 3L);
                }),
                Map.entry("a hash set's element added", () -> a.voters.add(N2)),
                Map.entry("a hash set's element replaced", () -> {
                    a.voters.remove(N2);
                    a.voters.add(N1);
                }),
                Map.entry("a record replaced by an unequal one", () -> a.point = new Point(1, "b")),
                Map.entry("a reference set", () -> a.peer = b),
                Map.entry("a reference moved to another row", () -> a.peer = c),
                Map.entry("an enum changed", () -> a.mode = Mode.LEADER),
                Map.entry("a number changed", () -> a.acceptedRound = 9));
        long oidA = -1;
        for (Map.Entry<String, Runnable> step : steps) {
            step.getValue().run();
            List<RowChange> changes = extractor.extract(N1, holder);
            assertThat(changes).as(step.getKey()).singleElement()
                    .satisfies(change -> assertThat(change.kind()).isEqualTo(RowChange.Kind.UPDATE));
            if (oidA < 0) {
                oidA = changes.getFirst().oid();
            }
            assertThat(changes.getFirst().oid()).as(step.getKey()).isEqualTo(oidA);
            assertThat(extractor.extract(N1, holder)).as("after " + step.getKey() + ", nothing changed").isEmpty();
        }
        a.point = new Point(1, "b"); // equal to the record it replaces
        a.log = new ArrayList<>(a.log);
        a.voters = new HashSet<>(a.voters);
        assertThat(extractor.extract(N1, holder)).as("equal values in new objects").isEmpty();
    }

    @Test
    void extract_ofAnObjectThatLeftAndCameBack_givesItANewOid_butOneReachedAnotherWayKeepsIt() {
        StateExtractor extractor = extractor("accepted_round", "peer");
        Replica a = replica(5);
        Replica b = replica(0);
        Holder holder = holding(a, b);
        List<RowChange> first = extractor.extract(N1, holder);
        long oidA = oidOfRound(first, 5);
        long oidB = first.stream().filter(c -> c.oid() != oidA).findFirst().orElseThrow().oid();
        holder.single = null;
        assertThat(extractor.extract(N1, holder)).extracting(RowChange::kind, RowChange::oid)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(RowChange.Kind.DELETE, oidB));
        holder.single = b;
        List<RowChange> back = extractor.extract(N1, holder);
        assertThat(back).singleElement().satisfies(change -> {
            assertThat(change.kind()).isEqualTo(RowChange.Kind.INSERT);
            assertThat(change.oid()).as("a new oid").isGreaterThan(oidB);
        });
        long newOidB = back.getFirst().oid();
        // Reached another way (through a's column) between two extractions: still the same row, same oid.
        holder.single = null;
        a.peer = b;
        assertThat(extractor.extract(N1, holder)).singleElement().satisfies(change -> {
            assertThat(change.kind()).isEqualTo(RowChange.Kind.UPDATE);
            assertThat(change.oid()).isEqualTo(oidA);
            assertThat(change.values()).containsEntry("peer", newOidB);
        });
        assertThat(extractor.extract(N1, holder)).as("nothing changed").isEmpty();
    }

    @Test
    void extract_ofAnAbsentNode_deletesItsRows_andNodesAreIndependent() {
        StateExtractor extractor = extractor("value");
        Replica one = new Replica();
        extractor.extract(N1, one);
        assertThat(extractor.extract(N2, new Replica())).hasSize(1);
        assertThat(extractor.extract(N1, null)).extracting(RowChange::kind, RowChange::node)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(RowChange.Kind.DELETE, N1));
    }

    @Test
    void plans_skipFieldsThatCannotReachDeclaredClasses() {
        StateExtractor extractor = extractor("value");
        Holder holder = new Holder();
        holder.notWalked.put(1L, "one");
        extractor.extract(N1, holder);
        // Holder and its list and map of replicas are visited; the byte array, the map of numbers to strings and
        // the strings in it never are.
        assertThat(extractor.plannedClasses()).containsExactlyInAnyOrder(Holder.class, ArrayList.class, LinkedHashMap.class);
        holder.notWalked.clear();
        holder.byName.put("r", new Replica());
        extractor.extract(N1, holder);
        assertThat(extractor.plannedClasses()).containsExactlyInAnyOrder(Holder.class, ArrayList.class,
                LinkedHashMap.class, Replica.class);
    }

    @Test
    void unknownClassOrColumn_isRefusedNamingTheTable() {
        assertThatThrownBy(() -> new StateExtractor(List.of(new TableSchema("T", "no.such.Cls", List.of())),
                getClass().getClassLoader())).hasMessageContaining("table T: class no.such.Cls cannot be loaded");
        assertThatThrownBy(() -> extractor("missing")).hasMessageContaining("has no field, record component or @Exposed method 'missing'");
    }
}
