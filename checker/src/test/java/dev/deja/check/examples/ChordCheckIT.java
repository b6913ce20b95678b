package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.chord.ChordDriver;
import dev.deja.examples.chord.ChordRing;
import dev.deja.node.NodeId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/chord.py against simulated runs of the paper's Chord scenario (ten nodes join at once, n9 fails at
 * 3 s, the run ends at 6 s; message delays of 1..10 ms reorder messages). Every join opens liveness spans that
 * stabilization closes; a span is a real violation when it is still open at the end or was still false with
 * {@code stabilized} at 1. Each bug is caught on a checked-in seed by the predicate it breaks, at the kind of
 * event that breaks it, and the script's spans are exactly those of an independent Java oracle
 * ({@link ChordOracle}); the correct protocol shows no real violation on the same seed (checked with the
 * script) nor on fifty more (checked with the oracle). The seed was found with {@code -Ddeja.searchSeeds=N}.
 */
class ChordCheckIT {
    /** The first seed on which every bug shows (-Ddeja.searchSeeds=N finds it). */
    private static final long SEED = 2;
    private static final long MORE_CLEAN_SEEDS_FROM = 100;
    private static final int MORE_CLEAN_SEEDS = 50;

    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N4 = new NodeId("n4");
    private static final NodeId FAILING = ChordDriver.failingNode(IntStream.rangeClosed(1, 10)
            .mapToObj(i -> new NodeId("n" + i)).toList()).orElseThrow();

    @TempDir
    Path temporary;

    /** The scenario with default faults: none but delays of 1..10 ms. */
    static ExampleRuns.Run simulate(Path directory, long seed, Optional<String> bug) {
        return ExampleRuns.simulate(directory, "chord", bug, seed, settings -> settings);
    }

    @Test
    void succSuccHash_breaksTheRingForGoodWhenANodeFails() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("succ-succ-hash"));
        CheckReport report = ExampleRuns.check(run.trace(), "chord");
        assertSameSpansAsTheOracle(run, report);

        // The failure opens spans that never close: the failed node's predecessor gives up on the hash it took for an
        // address, and the failed node's successor is left without a predecessor.
        Violation ring = onlyReal(report, "ring_consistency", run);
        assertThat(ring.endPosition()).as("still open at the end: %s", run.command()).isEmpty();
        assertThat(ring.event().node()).as(run.command()).isEqualTo(FAILING);
        assertThat(ring.event().messageType()).as(run.command()).contains("Fail");
        assertThat(((Number) ring.auxAtEnd().get("stabilized")).doubleValue()).as(run.command()).isEqualTo(1.0);
        assertThat(onlyReal(report, "fingers_correct", run).endPosition()).as(run.command()).isEmpty();

        // The safety property fires where the predecessor, out of successors, falls back to a ring of one.
        List<Violation> alone = ExampleRuns.findings(report, "pred_self_iff_succ_self");
        assertThat(alone).as(run.command()).hasSize(1);
        NodeId predecessorOfFailing = predecessorOnTheRing(FAILING);
        assertThat(alone.getFirst().event().node()).as(run.command()).isEqualTo(predecessorOfFailing);
        assertThat(alone.getFirst().event().type()).as(run.command()).isEqualTo("timer");
        assertThat(alone.getFirst().aux().get("self_pointers").toString()).as(run.command())
                .contains(predecessorOfFailing + ": predecessor ").contains("successor " + predecessorOfFailing + "]");
    }

    @Test
    void fingerLazy_leavesFingersWrongLongAfterTheRingStabilized() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("finger-lazy"));
        CheckReport report = ExampleRuns.check(run.trace(), "chord");
        assertSameSpansAsTheOracle(run, report);

        // Real spans open at a join or at the failure, and stay false because fix-fingers is slow to get round.
        List<Violation> late = real(report, "fingers_correct");
        assertThat(late).as("fingers still wrong at the end or once stable: %s", run.command()).isNotEmpty();
        for (Violation span : late) {
            assertThat(span.event().messageType()).as("%s %s", span, run.command()).hasValueSatisfying(type ->
                    assertThat(type).isIn("FoundSuccessor", "JoinRing", "Fail"));
        }
        assertThat(real(report, "ring_consistency")).as("the ring itself is fine: %s", run.command()).isEmpty();
        assertThat(ExampleRuns.findings(report, "pred_self_iff_succ_self")).as(run.command()).isEmpty();
    }

    @Test
    void fingerBoundary_makesThePerfectFingerOscillate() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("finger-boundary"));
        CheckReport report = ExampleRuns.check(run.trace(), "chord");
        assertSameSpansAsTheOracle(run, report);

        // n4's finger 6 starts exactly at n1's key: every node n4 hears of replaces it, fix-fingers puts n1 back.
        assertThat(ChordRing.fingerStart(ChordRing.key(N4), 6)).isEqualTo(ChordRing.key(N1));
        List<Violation> oscillations = real(report, "fingers_correct");
        assertThat(oscillations).as("spans of a stable ring: %s", run.command()).hasSizeGreaterThan(5);
        for (Violation span : oscillations) {
            assertThat(span.event().node()).as("%s %s", span, run.command()).isEqualTo(N4);
            assertThat(span.event().type()).as("%s %s", span, run.command()).isEqualTo("receive");
            assertThat(span.auxAtEnd().get("finger_problems").toString()).as("%s %s", span, run.command())
                    .startsWith("[n4: finger 6 is").endsWith("should be n1]");
        }
        assertThat(real(report, "ring_consistency")).as(run.command()).isEmpty();
    }

    @Test
    void clean_onTheBugsSeed_hasOnlyTheSpansOfJoinsAndTheFailure() {
        ExampleRuns.Run clean = simulate(temporary, SEED, Optional.empty());
        CheckReport report = ExampleRuns.check(clean.trace(), "chord");
        assertSameSpansAsTheOracle(clean, report);
        assertThat(report.violations()).as("the correct protocol: %s", clean.command())
                .allSatisfy(v -> {
                    assertThat(v.kind()).isEqualTo(Violation.Kind.EVENTUALLY);
                    assertThat(v.status()).isEqualTo(Violation.Status.VIOLATED);
                    assertThat(v.endPosition()).isPresent();
                    assertThat(((Number) v.auxAtEnd().get("stabilized")).doubleValue()).isLessThan(1.0);
                });
        assertThat(report.violations()).as("joins open spans: %s", clean.command()).isNotEmpty();
    }

    @Test
    void clean_hasNoRealViolation_onFiftyMoreSeeds() {
        long slowest = 0;
        for (long seed = MORE_CLEAN_SEEDS_FROM; seed < MORE_CLEAN_SEEDS_FROM + MORE_CLEAN_SEEDS; seed++) {
            ExampleRuns.Run run = simulate(temporary, seed, Optional.empty());
            List<ChordOracle.Span> spans = ChordOracle.spans(run.trace());
            slowest = Math.max(slowest, spans.stream().mapToLong(ChordOracle.Span::sinceChangeMillis).max().orElse(0));
            assertThat(spans.stream().filter(s -> s.real() || s.property() == ChordRing.Property.PRED_SELF_IFF_SUCC_SELF))
                    .as("real violations of the correct protocol: %s", run.command()).isEmpty();
            assertThat(spans).as("the joins and the failure open spans: %s", run.command()).isNotEmpty();
        }
        System.out.printf("ChordCheckIT: on %d seeds the correct ring was repaired at most %d ms after a join or "
                + "failure (stable after %d ms)%n", MORE_CLEAN_SEEDS, slowest, ChordOracle.STABLE_AFTER_MILLIS);
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: prints the seeds below N on which the oracle finds, for every bug, a real
     * violation of the predicate it breaks, and what the script says on the first of them.
     */
    @Test
    void searchSeeds() throws Exception {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        Map<String, ChordRing.Property> targets = new LinkedHashMap<>();
        targets.put("succ-succ-hash", ChordRing.Property.RING_CONSISTENCY);
        targets.put("finger-lazy", ChordRing.Property.FINGERS_CORRECT);
        targets.put("finger-boundary", ChordRing.Property.FINGERS_CORRECT);
        for (long seed = 0; seed < count; seed++) {
            List<String> shown = new ArrayList<>();
            for (Map.Entry<String, ChordRing.Property> target : targets.entrySet()) {
                ExampleRuns.Run run = simulate(Files.createTempDirectory(temporary, "search"), seed,
                        Optional.of(target.getKey()));
                if (ChordOracle.spans(run.trace()).stream().anyMatch(s -> s.real() && s.property() == target.getValue())) {
                    shown.add(target.getKey());
                    if (shown.size() == targets.size()) {
                        System.out.printf("seed %d shows every bug; %s: the script finds %s%n", seed, run.command(),
                                real(ExampleRuns.check(run.trace(), "chord"), target.getValue().predicate()));
                        return;
                    }
                }
            }
            System.out.printf("seed %d shows %s%n", seed, shown);
        }
    }

    /** The script's findings are the oracle's spans: same predicates, same opening and closing events, same realness. */
    private static void assertSameSpansAsTheOracle(ExampleRuns.Run run, CheckReport report) {
        List<String> script = new ArrayList<>();
        for (Violation v : report.violations()) {
            assertThat(v.status()).as("%s %s", v, run.command()).isEqualTo(Violation.Status.VIOLATED);
            script.add(describe(v.predicate(), v.event().position(), v.endPosition(),
                    v.kind() == Violation.Kind.EVENTUALLY && isReal(v)));
        }
        List<String> oracle = ChordOracle.spans(run.trace()).stream()
                .map(s -> describe(s.property().predicate(), s.openPosition(),
                        s.property() == ChordRing.Property.PRED_SELF_IFF_SUCC_SELF ? Optional.empty() : s.endPosition(),
                        s.property() != ChordRing.Property.PRED_SELF_IFF_SUCC_SELF && s.real()))
                .toList();
        assertThat(script).as("script findings vs the Java oracle: %s", run.command())
                .containsExactlyInAnyOrderElementsOf(oracle);
    }

    private static String describe(String predicate, long open, Optional<Long> end, boolean real) {
        return predicate + " " + open + ".." + end.map(String::valueOf).orElse("end") + (real ? " real" : "");
    }

    private static boolean isReal(Violation span) {
        return span.endPosition().isEmpty() || ((Number) span.auxAtEnd().get("stabilized")).doubleValue() >= 1.0;
    }

    private static List<Violation> real(CheckReport report, String predicate) {
        return ExampleRuns.findings(report, predicate).stream().filter(ChordCheckIT::isReal).toList();
    }

    private static Violation onlyReal(CheckReport report, String predicate, ExampleRuns.Run run) {
        List<Violation> found = real(report, predicate);
        assertThat(found).as("real %s violations: %s", predicate, run.command()).hasSize(1);
        return found.getFirst();
    }

    /** The live node just before {@code node} on the ring of n1..n10. */
    private static NodeId predecessorOnTheRing(NodeId node) {
        List<NodeId> ring = IntStream.rangeClosed(1, 10).mapToObj(i -> new NodeId("n" + i))
                .sorted(Comparator.comparingInt(ChordRing::key)).toList();
        int index = ring.indexOf(node);
        return ring.get((index + ring.size() - 1) % ring.size());
    }
}
