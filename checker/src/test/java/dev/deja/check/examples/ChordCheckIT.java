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
 * 3 s, the run ends at 6 s; message delays of 1..10 ms reorder messages). Every join and the failure open liveness
 * spans that stabilization closes; a real violation is a span still open at the end or still false once the ring
 * had been stable for two seconds ({@code stabilized} at 1 in its auxAtEnd), which the {@code *_once_stable}
 * safety predicates also report. Each bug is caught on a checked-in seed by the predicates it breaks, at the kind
 * of event that breaks it, and every finding of the script is one of an independent Java oracle
 * ({@link ChordOracle}) and the other way round; the correct protocol has no real violation on the same seed
 * (checked with the script) nor on more seeds (checked with the oracle; 10 in the default build, 50 under
 * -Psoak). The seed was found with
 * {@code -Ddeja.searchSeeds=N}.
 */
class ChordCheckIT {
    /** The first seed on which every bug shows. */
    private static final long SEED = 0;
    private static final long MORE_CLEAN_SEEDS_FROM = 100;
    /** How many more seeds the correct protocol runs: {@code -Ddeja.cleanSeeds=N}; the build passes 5, 50 under -Psoak. */
    private static final int MORE_CLEAN_SEEDS = Integer.getInteger("deja.cleanSeeds", 50);

    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N4 = new NodeId("n4");
    private static final List<NodeId> CLUSTER = IntStream.rangeClosed(1, 10).mapToObj(i -> new NodeId("n" + i)).toList();
    private static final NodeId FAILING = ChordDriver.failingNode(CLUSTER).orElseThrow();

    @TempDir
    Path temporary;

    /** The scenario with default faults: none but delays of 1..10 ms. */
    static ExampleRuns.Run simulate(Path directory, long seed, Optional<String> bug) {
        return ExampleRuns.simulate(directory, "chord", bug, seed, settings -> settings);
    }

    @Test
    void succSuccHash_breaksTheRingForGoodWhenANodeFails() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("succ-succ-hash"));
        CheckReport report = checkAgainstTheOracle(run);

        // The failure opens spans that never close: the failed node's predecessor gives up on the hash it took for an
        // address, and the failed node's successor is left without a predecessor.
        Violation ring = onlyReal(report, "ring_consistency", run);
        assertThat(ring.endPosition()).as("still open at the end: %s", run.command()).isEmpty();
        assertThat(ring.event().node()).as(run.command()).isEqualTo(FAILING);
        assertThat(ring.event().messageType()).as(run.command()).contains("Fail");
        assertThat(stabilized(ring)).as(run.command()).isEqualTo(1.0);
        assertThat(onlyReal(report, "fingers_correct", run).endPosition()).as(run.command()).isEmpty();
        assertThat(ExampleRuns.findings(report, "ring_consistent_once_stable")).as(run.command()).singleElement()
                .satisfies(v -> assertThat(v.event().position()).isGreaterThan(ring.event().position()));

        // The safety property fires where the predecessor, out of successors, falls back to a ring of one.
        NodeId predecessorOfFailing = predecessorOnTheRing(FAILING);
        assertThat(ExampleRuns.findings(report, "pred_self_iff_succ_self")).as(run.command()).singleElement()
                .satisfies(alone -> {
                    assertThat(alone.event().node()).isEqualTo(predecessorOfFailing);
                    assertThat(alone.event().type()).isEqualTo("timer");
                    assertThat(alone.aux().get("self_pointers").toString())
                            .isEqualTo("[" + predecessorOfFailing + ": predecessor " + predecessorOnTheRing(predecessorOfFailing)
                                    + ", successor " + predecessorOfFailing + "]");
                });
    }

    @Test
    void fingerLazy_leavesFingersWrongLongAfterTheRingStabilized() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("finger-lazy"));
        CheckReport report = checkAgainstTheOracle(run);

        // Fingers stay wrong long after a join or the failure because fix-fingers is slow to get round to them.
        assertThat(ExampleRuns.findings(report, "fingers_correct_once_stable"))
                .as("fingers wrong in a stable ring: %s", run.command()).isNotEmpty()
                .allSatisfy(v -> assertThat(v.aux().get("finger_problems").toString()).contains("should be"));
        assertThat(real(report, "ring_consistency")).as("the ring itself is fine: %s", run.command()).isEmpty();
        assertThat(ExampleRuns.findings(report, "ring_consistent_once_stable")).as(run.command()).isEmpty();
        assertThat(ExampleRuns.findings(report, "pred_self_iff_succ_self")).as(run.command()).isEmpty();
    }

    @Test
    void fingerBoundary_makesThePerfectFingerOscillate() {
        ExampleRuns.Run run = simulate(temporary, SEED, Optional.of("finger-boundary"));
        CheckReport report = checkAgainstTheOracle(run);

        // n4's finger 6 starts exactly at n1's key: every node n4 hears of replaces it, fix-fingers puts n1 back.
        assertThat(ChordRing.fingerStart(ChordRing.key(N4), 6)).isEqualTo(ChordRing.key(N1));
        List<Violation> oscillations = ExampleRuns.findings(report, "fingers_correct_once_stable");
        assertThat(oscillations).as("fingers wrong in a stable ring: %s", run.command()).allSatisfy(v ->
                assertThat(v.aux().get("finger_problems").toString()).startsWith("[n4: finger 6 is").endsWith("should be n1]"));
        // Apart from where the ring became stable while the finger was wrong, each is n4 hearing of another node.
        List<Violation> replaced = oscillations.stream().filter(v -> v.event().node().equals(N4)
                && v.event().messageType().filter(type -> List.of("Neighbours", "Notify", "FoundSuccessor").contains(type))
                .isPresent()).toList();
        assertThat(replaced).as(run.command()).hasSizeGreaterThan(5).hasSizeGreaterThanOrEqualTo(oscillations.size() - 2);
        assertThat(real(report, "ring_consistency")).as(run.command()).isEmpty();
    }

    @Test
    void clean_onTheBugsSeed_hasOnlyTheSpansOfJoinsAndTheFailure() {
        ExampleRuns.Run clean = simulate(temporary, SEED, Optional.empty());
        CheckReport report = checkAgainstTheOracle(clean);
        assertThat(report.violations()).as("the correct protocol: %s", clean.command()).isNotEmpty().allSatisfy(v -> {
            assertThat(v.kind()).isEqualTo(Violation.Kind.EVENTUALLY);
            assertThat(v.endPosition()).isPresent();
            assertThat(stabilized(v)).isLessThan(1.0);
        });
    }

    @Test
    void clean_hasNoRealViolation_onMoreSeeds() {
        long slowest = 0;
        for (long seed = MORE_CLEAN_SEEDS_FROM; seed < MORE_CLEAN_SEEDS_FROM + MORE_CLEAN_SEEDS; seed++) {
            ExampleRuns.Run run = simulate(temporary, seed, Optional.empty());
            List<ChordOracle.Finding> findings = ChordOracle.findings(run.trace());
            assertThat(findings).as("the joins and the failure open spans: %s", run.command()).isNotEmpty();
            assertThat(findings.stream().filter(ChordOracle.Finding::real))
                    .as("real violations of the correct protocol: %s", run.command()).isEmpty();
            slowest = Math.max(slowest, findings.stream().mapToLong(ChordOracle.Finding::sinceChangeMillis).max().orElse(0));
        }
        System.out.printf("ChordCheckIT: on %d seeds the correct ring was repaired at most %d ms after a join or "
                + "failure (stable after %d ms)%n", MORE_CLEAN_SEEDS, slowest, ChordOracle.STABLE_AFTER_MILLIS);
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: prints which bugs the oracle finds a real violation of on each seed below
     * N, up to the first seed that shows all three, and what the script reports on it.
     */
    @Test
    void searchSeeds() throws Exception {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        Map<String, String> targets = new LinkedHashMap<>();
        targets.put("succ-succ-hash", "ring_consistency");
        targets.put("finger-lazy", "fingers_correct_once_stable");
        targets.put("finger-boundary", "fingers_correct_once_stable");
        for (long seed = 0; seed < count; seed++) {
            List<String> shown = new ArrayList<>();
            for (Map.Entry<String, String> target : targets.entrySet()) {
                ExampleRuns.Run run = simulate(Files.createTempDirectory(temporary, "search"), seed,
                        Optional.of(target.getKey()));
                if (ChordOracle.findings(run.trace()).stream()
                        .anyMatch(f -> f.real() && f.predicate().equals(target.getValue()))) {
                    shown.add(target.getKey());
                }
            }
            System.out.printf("seed %d shows %s%n", seed, shown);
            if (shown.size() == targets.size()) {
                return;
            }
        }
    }

    /**
     * Checks the run with the script and requires the oracle's findings: the same predicates turning false at the
     * same events, the same spans closing at the same events, the same spans real.
     */
    private static CheckReport checkAgainstTheOracle(ExampleRuns.Run run) {
        CheckReport report = ExampleRuns.check(run.trace(), "chord");
        List<String> script = new ArrayList<>();
        for (Violation v : report.violations()) {
            assertThat(v.status()).as("%s %s", v, run.command()).isEqualTo(Violation.Status.VIOLATED);
            boolean always = v.kind() == Violation.Kind.ALWAYS;
            script.add(v.predicate() + " " + v.event().position()
                    + (always ? "" : ".." + v.endPosition().map(String::valueOf).orElse("end"))
                    + (always || isReal(v) ? " real" : ""));
        }
        List<String> oracle = ChordOracle.findings(run.trace()).stream().map(ChordOracle.Finding::toString).toList();
        assertThat(script).as("script findings vs the Java oracle: %s", run.command())
                .containsExactlyInAnyOrderElementsOf(oracle);
        return report;
    }

    private static double stabilized(Violation span) {
        return ((Number) span.auxAtEnd().get("stabilized")).doubleValue();
    }

    private static boolean isReal(Violation span) {
        return span.endPosition().isEmpty() || stabilized(span) >= 1.0;
    }

    private static List<Violation> real(CheckReport report, String predicate) {
        return ExampleRuns.findings(report, predicate).stream().filter(ChordCheckIT::isReal).toList();
    }

    private static Violation onlyReal(CheckReport report, String predicate, ExampleRuns.Run run) {
        List<Violation> found = real(report, predicate);
        assertThat(found).as("real %s violations: %s", predicate, run.command()).hasSize(1);
        return found.getFirst();
    }

    /** The node just before {@code node} on the ring of n1..n10. */
    private static NodeId predecessorOnTheRing(NodeId node) {
        List<NodeId> ring = CLUSTER.stream().sorted(Comparator.comparingInt(ChordRing::key)).toList();
        return ring.get((ring.indexOf(node) + ring.size() - 1) % ring.size());
    }
}
