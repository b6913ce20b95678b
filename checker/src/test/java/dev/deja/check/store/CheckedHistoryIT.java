package dev.deja.check.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.CheckedHistory;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.node.NodeId;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stored check as the viewer asks it: declared tables and a node's rows as of an event. */
class CheckedHistoryIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final TableSchema AGENT = new TableSchema("Agent", "x.Agent", List.of("round", "value"));
    private static final TableSchema PEER = new TableSchema("Peer", "x.Peer", List.of("items"));

    @TempDir
    Path trace;

    private static StateStep step(long position, NodeId node, RowChange... changes) {
        return new StateStep(new CheckedEvent(position, node, 1, position, position + 10, 1000 + position, "receive",
                Optional.empty(), Optional.empty()), List.of(changes));
    }

    private static RowChange agent(RowChange.Kind kind, NodeId node, long oid, Object round, Object value) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("round", round);
        values.put("value", value);
        return new RowChange("Agent", kind, node, oid, values);
    }

    private void storeCheck() {
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(List.of(AGENT, PEER));
            history.append(step(0, N1, agent(RowChange.Kind.INSERT, N1, 7, 0L, null),
                    agent(RowChange.Kind.INSERT, N1, 3, 1L, "x")));
            history.append(step(1, N2, agent(RowChange.Kind.INSERT, N2, 2, 0L, null)));
            history.append(step(2, N1, agent(RowChange.Kind.UPDATE, N1, 7, 5L, "v-n1")));
            history.append(step(3, N1, new RowChange("Agent", RowChange.Kind.DELETE, N1, 3, Map.of())));
            history.finishCheck();
        }
    }

    @Test
    void openForQueries_ofATraceNeverChecked_isEmpty() {
        assertThat(H2StateHistory.openForQueries(trace)).isEmpty();
    }

    @Test
    void tables_areTheDeclaredOnesInOrder() {
        storeCheck();
        try (CheckedHistory history = H2StateHistory.openForQueries(trace).orElseThrow()) {
            assertThat(history.tables()).contains(List.of(AGENT, PEER));
            assertThat(history.lastViolations()).contains(List.of());
        }
    }

    @Test
    void rowsAt_seesEachNodesRowsAsOfThePosition_byOid() {
        storeCheck();
        try (CheckedHistory history = H2StateHistory.openForQueries(trace).orElseThrow()) {
            assertThat(history.rowsAt(AGENT, N1, 0)).containsExactly(
                    new CheckedHistory.Row(3, List.of("1", "x")), new CheckedHistory.Row(7, Arrays.asList("0", null)));
            assertThat(history.rowsAt(AGENT, N1, 2)).containsExactly(
                    new CheckedHistory.Row(3, List.of("1", "x")), new CheckedHistory.Row(7, List.of("5", "v-n1")));
            assertThat(history.rowsAt(AGENT, N1, 3)).containsExactly(new CheckedHistory.Row(7, List.of("5", "v-n1")));
            assertThat(history.rowsAt(AGENT, N2, 0)).isEmpty();
            assertThat(history.rowsAt(AGENT, N2, 1)).containsExactly(new CheckedHistory.Row(2, Arrays.asList("0", null)));
            assertThat(history.rowsAt(PEER, N1, 3)).isEmpty();
        }
    }

    @Test
    void rowsAt_beforeTheTablesForQueriesAreBuilt_saysHowToOpen() {
        storeCheck();
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            assertThatThrownBy(() -> history.rowsAt(AGENT, N1, 0)).isInstanceOf(CheckDatabaseException.class)
                    .hasMessageContaining("openForQueries");
        }
    }
}
