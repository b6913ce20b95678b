package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ObjectTreesTest {
    enum Role { LEADER, FOLLOWER }

    record Ballot(long round, NodeId leader) {
    }

    static class Base {
        long term = 3;
    }

    static final class Sample extends Base {
        static int ignoredStatic = 9;
        String name = "n1";
        Role role = Role.LEADER;
        Set<String> peers = new HashSet<>(List.of("n3", "n2"));
        TreeMap<Long, Map<NodeId, String>> votes = new TreeMap<>();
        Ballot ballot = new Ballot(7, new NodeId("n2"));
        Sample self = this;
        String missing;
        Optional<String> decided = Optional.empty();
        byte[] digest = {1, 2, (byte) 0xff};
        List<Integer> many = new ArrayList<>();
    }

    @Test
    void render_ofAUserObject_showsFieldsRecordsCollectionsAndCycles() {
        Sample sample = new Sample();
        sample.votes.put(2L, new HashMap<>(Map.of(new NodeId("n2"), "v", new NodeId("n1"), "w")));
        for (int i = 0; i < ObjectTrees.MAX_ELEMENTS + 5; i++) {
            sample.many.add(i);
        }
        String rendered = ObjectTrees.render("n1", sample).render();
        assertThat(rendered).startsWith("""
                n1 = Sample
                  term = 3
                  name = "n1"
                  role = LEADER
                  peers = HashSet (2 elements)
                    ∈ "n2"
                    ∈ "n3"
                  votes = TreeMap (1 entry)
                    2 = HashMap (2 entries)
                      n1 = "w"
                      n2 = "v"
                  ballot = Ballot
                    round = 7
                    leader = n2
                  self = (cycle: Sample shown above)
                  missing = null
                  decided = Optional.empty
                  digest = byte[3] 0102ff
                  many = ArrayList (205 elements)
                    [0] = 0
                """);
        assertThat(rendered).endsWith("    [199] = 199\n    … = 5 more not shown\n").doesNotContain("ignoredStatic");
    }

    @Test
    void diff_ofTwoStates_marksChangedAddedAndRemovedMembers() {
        Sample before = new Sample();
        before.votes.put(1L, Map.of(new NodeId("n1"), "v"));
        ObjectTree old = ObjectTrees.render("n1", before);
        Sample after = new Sample();
        after.term = 4;
        after.peers.add("n4");
        ObjectTree.Diff diff = ObjectTrees.render("n1", after).diff(old);

        assertThat(diff.changedBelow()).isTrue();
        ObjectTree.Diff term = child(diff, "term");
        assertThat(term.change()).isEqualTo(ObjectTree.Change.CHANGED);
        assertThat(term.before()).isEqualTo("3");
        assertThat(term.text()).isEqualTo("4");
        ObjectTree.Diff peers = child(diff, "peers");
        assertThat(peers.change()).isEqualTo(ObjectTree.Change.CHANGED);
        assertThat(peers.before()).isEqualTo("HashSet (2 elements)");
        // A set diffs by element: the added element is the only change, the others are matched with themselves.
        assertThat(child(peers, "∈ \"n4\"").change()).isEqualTo(ObjectTree.Change.ADDED);
        assertThat(child(peers, "∈ \"n2\"").change()).isEqualTo(ObjectTree.Change.SAME);
        assertThat(child(peers, "∈ \"n3\"").change()).isEqualTo(ObjectTree.Change.SAME);
        assertThat(child(child(diff, "votes"), "1").change()).isEqualTo(ObjectTree.Change.REMOVED);
        assertThat(child(diff, "name").change()).isEqualTo(ObjectTree.Change.SAME);
        assertThat(child(diff, "ballot").changedBelow()).isFalse();
    }

    @Test
    void diff_ofASetGrowingInTheMiddle_showsOneAddedElementNotShiftedIndexes() {
        Set<String> before = new HashSet<>(List.of("n1", "n4", "n5"));
        Set<String> after = new HashSet<>(List.of("n1", "n3", "n4", "n5"));
        after.remove("n1");
        ObjectTree.Diff diff = ObjectTrees.render("alive", after).diff(ObjectTrees.render("alive", before));
        List<String> lines = diff.children().stream().map(ObjectTree.Diff::line).toList();
        assertThat(lines).containsExactly("+ ∈ \"n3\"", "∈ \"n4\"", "∈ \"n5\"", "− ∈ \"n1\"");
    }

    @Test
    void diff_ofASetOfRecords_matchesEqualRecordsWhateverTheirIndex() {
        Set<Ballot> before = new HashSet<>(List.of(new Ballot(2, new NodeId("n2")), new Ballot(5, new NodeId("n1"))));
        Set<Ballot> after = new HashSet<>(before);
        after.add(new Ballot(1, new NodeId("n3")));
        ObjectTree.Diff diff = ObjectTrees.render("ballots", after).diff(ObjectTrees.render("ballots", before));
        assertThat(diff.children()).filteredOn(d -> d.change() != ObjectTree.Change.SAME).singleElement()
                .satisfies(d -> {
                    assertThat(d.name()).isEqualTo("∈ Ballot(round=1, leader=n3)");
                    assertThat(d.change()).isEqualTo(ObjectTree.Change.ADDED);
                });
    }

    @Test
    void diff_withNothingBefore_isAllSame() {
        ObjectTree.Diff diff = ObjectTrees.render("n1", new Sample()).diff(null);
        assertThat(diff.changedBelow()).isFalse();
        assertThat(diff.children()).allMatch(d -> d.change() == ObjectTree.Change.SAME);
    }

    @Test
    void render_ofEqualHashSets_isEqualWhateverTheirIterationOrder() {
        Set<String> small = new HashSet<>(16);
        Set<String> large = new HashSet<>(1024);
        for (String s : List.of("delta", "alpha", "charlie", "bravo")) {
            small.add(s);
            large.add(s);
        }
        assertThat(ObjectTrees.render("s", small)).isEqualTo(ObjectTrees.render("s", large));
    }

    private static ObjectTree.Diff child(ObjectTree.Diff diff, String name) {
        return diff.children().stream().filter(d -> d.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no member " + name + " in " + diff));
    }
}
