package dev.deja.check.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A chunk holds what Jackson's data binding writes for the same values, and it reads back to them. */
class StepChunkTest {
    private static final ObjectMapper BINDING = CBORMapper.builder().build();
    private static final NodeId NODE = new NodeId("n1");

    /** One value of every normalized kind, nested, and maps keyed by strings, numbers and lists. */
    private static Map<String, Object> everyKind() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("absent", null);
        values.put("text", "a \"quoted\" line\nwith ünïcode");
        values.put("count", Long.MIN_VALUE);
        values.put("ratio", 0.1);
        values.put("nan", Double.NaN);
        values.put("infinite", Double.NEGATIVE_INFINITY);
        values.put("flag", true);
        values.put("list", List.of(1L, "two", List.of(), Map.of("k", false)));
        Map<Object, Object> byName = new LinkedHashMap<>();
        byName.put("z", 1L);
        byName.put("a", List.of(2.5));
        values.put("byName", byName);
        Map<Object, Object> byNumber = new LinkedHashMap<>();
        byNumber.put(7L, "seven");
        byNumber.put(-1L, null);
        values.put("byNumber", byNumber);
        Map<Object, Object> byList = new LinkedHashMap<>();
        byList.put(List.of("n1", 3L), "pair");
        values.put("byList", byList);
        values.put("empty", Map.of());
        return values;
    }

    private static StateStep step(long position, List<RowChange> changes) {
        return new StateStep(new CheckedEvent(position, NODE, 1, position, position + 10, 1000 + position, "deliver",
                Optional.of("Ping"), Optional.of(new NodeId("n2"))), changes);
    }

    @Test
    void finish_everyValueKind_writesWhatDataBindingWrites() throws Exception {
        Map<String, Object> values = everyKind();
        StepChunk chunk = new StepChunk();
        chunk.add(step(4, List.of(new RowChange("Agent", RowChange.Kind.INSERT, NODE, 9, values))));

        byte[] stored = chunk.finish();

        List<Object> change = new ArrayList<>(List.of("Agent", "I", "n1", 9L));
        change.add(values);
        List<Object> expected = new ArrayList<>(List.of(4L, "n1", 1L, 4L, 14L, 1004L, "deliver", "Ping", "n2"));
        expected.add(List.of(change));
        // Compared as parsed trees: the chunk's own array is written before its length is known.
        assertThat(BINDING.readTree(stored)).isEqualTo(BINDING.readTree(BINDING.writeValueAsBytes(List.of(expected))));
    }

    @Test
    void read_writtenChunk_givesBackTheSteps() throws Exception {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("round", 3L);
        values.put("value", List.of("a", 1.5, 2.0, true, Double.NaN));
        values.put("peers", Map.of("n2", 2L));
        values.put("none", null);
        List<StateStep> steps = List.of(
                step(1, List.of(new RowChange("Agent", RowChange.Kind.INSERT, NODE, 5, values))),
                step(2, List.of()),
                step(3, List.of(new RowChange("Agent", RowChange.Kind.DELETE, NODE, 5, Map.of()))));
        StepChunk chunk = new StepChunk();
        for (StateStep step : steps) {
            chunk.add(step);
        }

        assertThat(chunk.firstPosition()).isEqualTo(1);
        assertThat(chunk.lastPosition()).isEqualTo(3);
        assertThat(StepChunk.read(chunk.finish())).isEqualTo(steps);
    }

    @Test
    void read_someStepsAndTables_givesThoseStepsWithThoseTablesChangesOnly() throws Exception {
        Map<String, Object> values = everyKind();
        RowChange agent = new RowChange("Agent", RowChange.Kind.INSERT, NODE, 5, Map.of("round", 3L));
        RowChange lock = new RowChange("Lock", RowChange.Kind.UPDATE, NODE, 6, values);
        RowChange gone = new RowChange("Agent", RowChange.Kind.DELETE, NODE, 5, Map.of());
        StepChunk chunk = new StepChunk();
        chunk.add(step(1, List.of(agent, lock)));
        chunk.add(step(2, List.of(lock)));
        chunk.add(step(3, List.of(lock, gone)));
        chunk.add(step(4, List.of()));
        byte[] stored = chunk.finish();
        List<StateStep> read = new ArrayList<>();

        StepChunk.read(stored, position -> position != 2, "Agent"::equals, read::add);

        assertThat(read).containsExactly(step(1, List.of(agent)), step(3, List.of(gone)), step(4, List.of()));
    }

    @Test
    void read_upToALastPosition_stopsThere_evenBeforeADamagedRest() throws Exception {
        StepChunk chunk = new StepChunk();
        for (long position = 1; position <= 4; position++) {
            chunk.add(step(position, List.of()));
        }
        byte[] stored = chunk.finish();
        List<Long> read = new ArrayList<>();
        StepChunk.read(stored, position -> position != 2, 3, table -> true, step -> read.add(step.event().position()));
        assertThat(read).containsExactly(1L, 3L);
        // Not parsed past the last position: a chunk cut short after it still reads.
        read.clear();
        StepChunk.read(java.util.Arrays.copyOf(stored, stored.length - 4), position -> true, 2, table -> true,
                step -> read.add(step.event().position()));
        assertThat(read).containsExactly(1L, 2L);
        // A step not wanted at the last position stops the read as well.
        read.clear();
        StepChunk.read(stored, position -> position == 1, 2, table -> true, step -> read.add(step.event().position()));
        assertThat(read).containsExactly(1L);
    }

    @Test
    void tables_areThoseItsStepsChange_untilCleared() throws Exception {
        StepChunk chunk = new StepChunk();
        chunk.add(step(1, List.of(new RowChange("Lock", RowChange.Kind.INSERT, NODE, 6, Map.of("held", true)))));
        chunk.add(step(2, List.of()));
        chunk.add(step(3, List.of(new RowChange("Agent", RowChange.Kind.DELETE, NODE, 5, Map.of()))));
        assertThat(chunk.tables()).containsExactly("Agent", "Lock");

        chunk.finish();
        chunk.clear();
        chunk.add(step(4, List.of()));

        assertThat(chunk.tables()).isEmpty();
    }

    @Test
    void read_everyValueKind_givesTheNormalizedValues_withMapKeysAsText() throws Exception {
        StepChunk chunk = new StepChunk();
        chunk.add(step(1, List.of(new RowChange("Agent", RowChange.Kind.INSERT, NODE, 5, everyKind()))));

        Map<String, Object> read = StepChunk.read(chunk.finish()).getFirst().changes().getFirst().values();

        Map<String, Object> expected = new LinkedHashMap<>(everyKind());
        Map<String, Object> byNumber = new LinkedHashMap<>();
        byNumber.put("7", "seven");
        byNumber.put("-1", null);
        expected.put("byNumber", byNumber);
        expected.put("byList", Map.of("[n1, 3]", "pair"));
        assertThat(read).isEqualTo(expected);
        assertThat(read.keySet()).containsExactlyElementsOf(expected.keySet());
        assertThat(read.get("count")).isInstanceOf(Long.class);
        assertThat(read.get("list")).isEqualTo(List.of(1L, "two", List.of(), Map.of("k", false)));
    }
}
