package dev.deja.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ThresholdTest {
    private static final CheckedEvent EVENT = new CheckedEvent(7, new NodeId("server"), 1, 3, 9, 1_000, "receive",
            Optional.of("Acquire"), Optional.of(new NodeId("c1")));
    private final Threshold threshold = Threshold.parse("enough_time=1000");

    private static Violation span(Map<String, Object> aux, Map<String, Object> auxAtEnd) {
        return new Violation("queue_empty", Violation.Kind.EVENTUALLY, Violation.Status.VIOLATED, EVENT,
                Optional.empty(), aux, auxAtEnd, "");
    }

    @Test
    void passes_ofASpan_usesTheValueAtItsEnd() {
        assertThat(threshold.passes(span(Map.of("enough_time", 0L), Map.of("enough_time", 3810L)))).isTrue();
        assertThat(threshold.passes(span(Map.of("enough_time", 0L), Map.of("enough_time", 12L)))).isFalse();
        assertThat(threshold.appliesTo(span(Map.of(), Map.of("enough_time", 12L)))).isTrue();
    }

    @Test
    void passes_withoutValuesAtTheEnd_usesTheValueWhereItWasFound() {
        assertThat(threshold.passes(span(Map.of("enough_time", 2000L), Map.of()))).isTrue();
        assertThat(threshold.passes(span(Map.of("enough_time", 5L), Map.of()))).isFalse();
        assertThat(threshold.appliesTo(span(Map.of("other", 5L), Map.of()))).isFalse();
    }

    @Test
    void classify_ofAReport_screensOutOnlyFindingsThatWouldCount() {
        Violation open = span(Map.of(), Map.of("enough_time", 12L));
        Violation closed = new Violation("queue_empty", Violation.Kind.EVENTUALLY, Violation.Status.VIOLATED, EVENT,
                Optional.of(20L), Map.of(), Map.of("enough_time", 12L), "");
        Violation stable = span(Map.of(), Map.of("enough_time", 3810L));
        Violation other = new Violation("safe", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, EVENT,
                Optional.empty(), Map.of("x", 1L), "");
        CheckReport report = new CheckReport("t", "s.py", 30, false, java.util.List.of(open, closed, stable, other))
                .classified(java.util.List.of(threshold));
        assertThat(report.violations()).extracting(Violation::belowThreshold).containsExactly(true, false, false, false);
        assertThat(report.violations()).extracting(Violation::statusText)
                .containsExactly("open at end", "closed at 20", "open at end", "VIOLATED");
        assertThat(report.counted()).isEqualTo(2);
        assertThat(report.screenedOut()).isEqualTo(1);
        assertThat(report.thresholds()).containsExactly("enough_time=1000");
    }
}
