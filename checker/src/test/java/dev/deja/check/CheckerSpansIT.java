package dev.deja.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.testing.ExampleRuns;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Liveness spans over a real simulated run: a span reports its aux values where it opened and, in
 * {@code auxAtEnd}, at the last event at which its predicate was still false (the end of the trace for a span
 * still open), which is what screens out false alarms; the JSON report keeps both.
 */
class CheckerSpansIT {
    private static final String SCRIPT = """
            from deja import table, eventually, event
            Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["accepted_value"])

            def where():
                return event.position

            @eventually(aux=[where])
            def majority_accepted():
                return len([a for a in Agent if a.accepted_value is not None]) >= 3

            @eventually(aux=[where])
            def never():
                return False
            """;

    @TempDir
    Path temporary;

    @Test
    void spans_reportAuxWhereTheyOpenAndAtTheirLastFalseEvent() throws Exception {
        ExampleRuns.Run run = ExampleRuns.simulate(temporary, "paxos", 5, Optional.empty(), 1, settings -> settings);
        Path script = Files.writeString(temporary.resolve("spans.py"), SCRIPT);
        CheckReport report = Checker.check(run.trace(), script,
                Checker.Options.defaults().withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
        List<Long> handlerPositions = handlerPositions(run.trace());
        long first = handlerPositions.getFirst();
        long last = handlerPositions.getLast();

        Violation accepted = ExampleRuns.findings(report, "majority_accepted").getFirst();
        assertThat(accepted.event().position()).as(run.command()).isEqualTo(first);
        assertThat(accepted.aux()).containsEntry("where", first);
        long closed = accepted.endPosition().orElseThrow();
        long lastFalse = handlerPositions.get(handlerPositions.indexOf(closed) - 1);
        assertThat(accepted.auxAtEnd()).as("aux at the last event before %d", closed).containsEntry("where", lastFalse);

        Violation never = ExampleRuns.findings(report, "never").getFirst();
        assertThat(never.endPosition()).isEmpty();
        assertThat(never.aux()).containsEntry("where", first);
        assertThat(never.auxAtEnd()).containsEntry("where", last);

        Path json = temporary.resolve("report.json");
        report.write(json);
        assertThat(CheckReport.read(json)).isEqualTo(report);
    }

    @Test
    void forall_returned_givesEachFailingRowItsOwnSpan() throws Exception {
        ExampleRuns.Run run = ExampleRuns.simulate(temporary, "paxos", 5, Optional.empty(), 1, settings -> settings);
        Path script = Files.writeString(temporary.resolve("rows.py"), """
                from deja import table, eventually, forall, event
                Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode", columns=["accepted_value"])

                def node_of(row):
                    return row.node

                @eventually(aux=[node_of])
                def every_agent_accepted():
                    return forall(Agent, lambda a: a.accepted_value is not None)
                """);
        CheckReport report = Checker.check(run.trace(), script,
                Checker.Options.defaults().withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
        List<Violation> spans = ExampleRuns.findings(report, "every_agent_accepted");
        // One span per agent row, named by table, node and oid, with the aux value of its own row.
        assertThat(spans).as(run.command()).hasSize(5);
        assertThat(spans).extracting(v -> (String) v.witness()).allMatch(w -> w.matches("Agent\\[n[1-5]:\\d+]"))
                .doesNotHaveDuplicates();
        for (Violation span : spans) {
            assertThat((String) span.witness()).startsWith("Agent[" + span.aux().get("node_of") + ":");
        }
    }

    /** The positions of the merged entries that began a handler: the checker's events, found by a plain replay. */
    private static List<Long> handlerPositions(Path trace) {
        List<Long> positions = new ArrayList<>();
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (event.startedHandler()) {
                positions.add(position);
            }
        }));
        return positions;
    }
}
