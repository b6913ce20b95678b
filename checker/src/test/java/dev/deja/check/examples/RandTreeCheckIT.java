package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.randtree.TreeOracle;
import dev.deja.examples.randtree.TreeViews.Property;
import dev.deja.node.NodeId;
import dev.deja.runtime.Partition;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * scripts/randtree.py against simulated six-node RandTree runs: each of CrystalBall's four inconsistencies is
 * caught by its predicate on a checked-in seed, at the kind of event where the protocol mistake happens and at
 * the position an independent Java oracle ({@link TreeOracle}) computes from the replayed nodes; the correct
 * protocol breaks no safety property on the same seeds and more (10 by default, 50 under -Psoak), and its one-root
 * spans all close. The seeds
 * were found with {@code -Ddeja.searchSeeds=N}.
 */
class RandTreeCheckIT {
    /**
     * One setting for every bug: 5% message loss, 1..10 ms delays, crashes with 300 ms restarts (faster than a
     * parent drops a silent child), and the first root, n1, cut off from the others between 0.8 s and 3.5 s, so
     * that another root takes over and n1 later takes the root back; 5 virtual seconds.
     */
    static final UnaryOperator<SimulationSettings.Builder> SETTING = settings -> settings.dropProbability(0.05)
            .delayMillis(1, 10).crashRate(0.006).restartDelayMillis(300)
            .partition(Partition.parse("n1|n2,n3,n4,n5,n6@800ms..3500ms"))
            .maxVirtualMillis(5000).stop(SimulationSettings.Stop.AT_LIMIT);

    /**
     * Extra seeds the correct protocol runs without breaking a safety property (checked by the Java oracle):
     * {@code -Ddeja.cleanSeeds=N}; the build passes 5, 50 under -Psoak.
     */
    private static final int CLEAN_SEEDS = Integer.getInteger("deja.cleanSeeds", 50);
    /** A one-root span still open at the end of a run is a split tree if the tree had been settled this long. */
    private static final long SETTLED_MILLIS = 1000;

    /** One bug: its seed, the predicate that catches it, and the event where its mistake shows. */
    record Case(String bug, long seed, String predicate, Property property, String eventType,
                Optional<String> messageType, Optional<NodeId> node) {
        @Override
        public String toString() {
            return bug + " (seed " + seed + ")";
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                // A restarted child rejoined under its old parent's parent, whose UpdateSiblings lists it.
                new Case("sibling-not-removed", 5, "children_siblings_disjoint", Property.CHILDREN_SIBLINGS_DISJOINT,
                        "receive", Optional.of("UpdateSiblings"), Optional.empty()),
                // A restarted child smaller than the root became the root; its old parent installs it via NewRoot.
                new Case("stale-child-on-new-root", 24, "root_not_a_child", Property.ROOT_NOT_A_CHILD,
                        "receive", Optional.of("NewRoot"), Optional.empty()),
                // n1 is cut off: on a recovery tick its smallest child promotes itself and keeps its siblings.
                new Case("root-keeps-siblings", 1, "root_has_no_siblings", Property.ROOT_HAS_NO_SIBLINGS,
                        "timer", Optional.empty(), Optional.empty()),
                // The bootstrap joins itself at its start without scheduling the recovery timer.
                new Case("no-recovery-timer", 1, "recovery_timer_scheduled", Property.RECOVERY_TIMER_SCHEDULED,
                        "start", Optional.empty(), Optional.of(new NodeId("n1"))));
    }

    @TempDir
    static Path temporary;

    /** Runs and reports shared by the tests (checking a run with Python is the slow part). */
    private static final Map<String, ExampleRuns.Run> RUNS = new HashMap<>();
    private static final Map<String, CheckReport> REPORTS = new HashMap<>();

    private static ExampleRuns.Run simulate(Optional<String> bug, long seed) throws Exception {
        String key = bug.orElse("clean") + "/" + seed;
        ExampleRuns.Run run = RUNS.get(key);
        if (run == null) {
            run = ExampleRuns.simulate(Files.createTempDirectory(temporary, "run"), "randtree", bug, seed, SETTING);
            RUNS.put(key, run);
        }
        return run;
    }

    private static CheckReport check(ExampleRuns.Run run) {
        return REPORTS.computeIfAbsent(run.command(), command -> ExampleRuns.check(run.trace(), "randtree"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void bug_isCaughtByItsPredicate_whereTheOracleSeesItFirst(Case bug) throws Exception {
        ExampleRuns.Run run = simulate(Optional.of(bug.bug()), bug.seed());
        CheckReport report = check(run);
        List<Violation> found = ExampleRuns.findings(report, bug.predicate());
        assertThat(found).as("%s violations; reproduce: %s && ./deja check t scripts/randtree.py", bug.predicate(),
                run.command()).isNotEmpty();
        Violation first = found.getFirst();
        System.out.printf("RandTreeCheckIT: %s caught by %s at %s, aux %s%n", bug, bug.predicate(), first.event(),
                first.aux());
        assertThat(first.kind()).as(run.command()).isEqualTo(Violation.Kind.ALWAYS);
        assertThat(first.event().type()).as(run.command()).isEqualTo(bug.eventType());
        assertThat(first.event().messageType()).as(run.command()).isEqualTo(bug.messageType());
        assertThat(first.event().position()).as("the oracle's first %s; %s", bug.property(), run.command())
                .isEqualTo(TreeOracle.firstViolations(run.trace()).get(bug.property()));
        assertThat(first.aux()).as(run.command()).isNotEmpty();
        bug.node().ifPresent(node -> assertThat(first.event().node()).as(run.command()).isEqualTo(node));
    }

    @Test
    void correctProtocol_onTheBugSeeds_isClean() throws Exception {
        for (long seed : cases().mapToLong(Case::seed).distinct().toArray()) {
            ExampleRuns.Run run = simulate(Optional.empty(), seed);
            CheckReport report = check(run);
            String reproduce = run.command() + " && ./deja check t scripts/randtree.py";
            assertThat(report.violations().stream().filter(v -> v.kind() == Violation.Kind.ALWAYS))
                    .as("safety violations; reproduce: %s", reproduce).isEmpty();
            assertThat(report.violations()).as(reproduce).allSatisfy(span -> {
                assertThat(span.status()).as(reproduce).isEqualTo(Violation.Status.VIOLATED);
                assertThat(span.predicate()).as(reproduce).isEqualTo("one_root");
                assertThat(span.endPosition().isPresent() || (Long) span.auxAtEnd().get("stable_ms") < SETTLED_MILLIS)
                        .as("span %s is closed or the tree was still unsettled at the end; %s", span, reproduce)
                        .isTrue();
            });
            assertThat(report.eventsChecked()).as(reproduce).isGreaterThan(500);
        }
    }

    @Test
    void correctProtocol_overMoreSeeds_breaksNoSafetyProperty() throws Exception {
        List<String> failures = new ArrayList<>();
        for (long seed = 100; seed < 100 + CLEAN_SEEDS; seed++) {
            ExampleRuns.Run run = simulate(Optional.empty(), seed);
            Map<Property, Long> broken = TreeOracle.firstViolations(run.trace());
            if (!broken.isEmpty()) {
                failures.add(broken + "; reproduce: " + run.command() + " && ./deja check t scripts/randtree.py");
            }
        }
        assertThat(failures).as("the correct protocol broke a safety property").isEmpty();
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: prints, for each bug, the first seeds below N whose run the Java oracle
     * finds broken, and the command to see it.
     */
    @Test
    void searchSeeds() throws Exception {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        Map<String, List<Long>> found = new LinkedHashMap<>();
        for (Case bug : cases().toList()) {
            for (long seed = 1; seed < count && found.getOrDefault(bug.bug(), List.of()).size() < 3; seed++) {
                ExampleRuns.Run run = simulate(Optional.of(bug.bug()), seed);
                if (TreeOracle.firstViolations(run.trace()).containsKey(bug.property())) {
                    found.computeIfAbsent(bug.bug(), b -> new ArrayList<>()).add(seed);
                    System.out.printf("%s: seed %d: %s%n", bug.bug(), seed, run.command());
                }
            }
        }
        System.out.println("seeds found: " + found);
    }
}
