package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.deja.check.CheckReport;
import dev.deja.check.CheckedEvent;
import dev.deja.check.Violation;
import dev.deja.explore.CriticalTransition;
import dev.deja.explore.RecordedLiveness;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * How {@code deja check --classify-liveness} shows its verdicts: the STATUS column of the findings table, the liveness
 * table with the figures behind each verdict, and the {@code liveness} object of each classified span in the JSON.
 * Classifications made by hand here; RecordedLivenessIT makes real ones.
 */
class LivenessColumnTest {
    private static final String NETWORK = "the recorded network, 1..10 ms delays, no loss, no duplication "
            + "(trace.json of deja simulate)";

    private static Violation span(String predicate, long position) {
        return new Violation(predicate, Violation.Kind.EVENTUALLY, Violation.Status.VIOLATED,
                new CheckedEvent(position, new NodeId("server"), 1, position, position + 3, 1_700_000_001_000L, "receive",
                        Optional.of("Acquire"), Optional.of(new NodeId("c2"))), Optional.empty(), Map.of("enough_time", 0L),
                "");
    }

    private static Map<Violation, RecordedLiveness.Classification> verdicts(Violation dead, Violation alive) {
        CriticalTransition critical = new CriticalTransition("queue_empty", CriticalTransition.Verdict.C1_DEAD, 88,
                "server", "receive Acquire from c2", "Acquire", 87, 3, 1200, 88,
                List.of(new CriticalTransition.Probe(88, 3, 0, -1, 3300), new CriticalTransition.Probe(87, 1, 1, 88, 1)),
                Optional.empty(), Optional.of(new CriticalTransition.LiveWalk(87, 88, Optional.empty(), Optional.empty())),
                Optional.of(new CriticalTransition.Evidence("traces/lock", Optional.empty(), Optional.empty(),
                        Optional.of("traces/lock-liveness/queue_empty-live.trace"),
                        Optional.of("traces/lock-liveness/queue_empty-live.schedule"),
                        Optional.of("./deja simulate --from traces/lock --at 216 --seed 1 --steps 1200 --schedule "
                                + "traces/lock-liveness/queue_empty-live.schedule --out "
                                + "traces/lock-liveness/queue_empty-live.trace"),
                        Optional.of("./deja view traces/lock --compare traces/lock-liveness/queue_empty-live.trace"))));
        Map<Violation, RecordedLiveness.Classification> out = new LinkedHashMap<>();
        out.put(dead, new RecordedLiveness.Classification("queue_empty", 217, 88, 517, RecordedLiveness.Verdict.DEAD, 3, 0,
                1200, List.of(), 2049, Optional.of(critical)));
        out.put(alive, new RecordedLiveness.Classification("all_joined", 300, 120, 517, RecordedLiveness.Verdict.TRANSIENT,
                4, 3, 1200, List.of(12L, 40L, 96L), 1500, Optional.empty()));
        return out;
    }

    @Test
    void print_deadAndTransientSpans_matchesTheGoldenTables() throws Exception {
        Violation dead = span("queue_empty", 217);
        Violation alive = span("all_joined", 300);
        CheckReport report = new CheckReport("traces/lock", "scripts/lockserver.py", 517, false, List.of(dead, alive));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CheckCommand.print(report, out, verdicts(dead, alive));
        LivenessColumn.print(new LivenessColumn.Classified(verdicts(dead, alive), NETWORK), out);
        String actual = bytes.toString(StandardCharsets.UTF_8);
        assertThat(actual).isEqualTo(CliRun.golden("check-classify-liveness.txt", actual));
    }

    @Test
    void json_classifiedSpans_carryTheirLivenessFigures() throws Exception {
        Violation dead = span("queue_empty", 217);
        Violation alive = span("all_joined", 300);
        CheckReport report = new CheckReport("traces/lock", "scripts/lockserver.py", 517, false, List.of(dead, alive));
        String actual = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(LivenessColumn.json(report, new LivenessColumn.Classified(verdicts(dead, alive), NETWORK)))
                + "\n";
        assertThat(actual).isEqualTo(CliRun.golden("check-classify-liveness.json", actual));
    }

    @Test
    void print_noOpenSpan_saysSo() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LivenessColumn.print(LivenessColumn.Classified.NONE, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("liveness: no @eventually span is open at the end of the trace\n");
    }
}
