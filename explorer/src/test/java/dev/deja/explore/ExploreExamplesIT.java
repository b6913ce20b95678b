package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.runtime.Partition;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every example bug that breaks a safety predicate is found by exploration from a fixed seed within a stated
 * budget of paths, and the fixed protocol explored with the same budget is clean of safety violations. The
 * shortest violating path is written as a trace by running its schedule again; the checker, reading that trace as
 * {@code deja check} does, reports the same predicate (a run's schedule reproduces its violation), at the position
 * the explorer's report gives.
 *
 * <p>Budgets: one worker, stop at the first violation, so that the path found is the same on every machine. The
 * fixed protocol explores the full budget its bugs were given under {@code -Psoak} only ({@code -Ddeja.soak=true});
 * the default build explores the first {@value #CLEAN_PATHS} paths of each (the same seed, so the same paths), which
 * is most of this class's time otherwise: random search needs 206 paths to find latest-response, and a clean run
 * cannot stop early.
 */
class ExploreExamplesIT {
    private static final Path SCRIPTS = Path.of("..", "scripts");

    /** The fixed protocol's budget in the default build: the first paths of the soak build's. */
    private static final long CLEAN_PATHS = 100;

    /** The Paxos paper's network: 30% loss, 1..100 ms delays. */
    private static final UnaryOperator<SimulationSettings.Builder> PAXOS = s -> s.dropProbability(0.3).delayMillis(1, 100);

    /** RandTreeCheckIT's setting: 5% loss, crashes with fast restarts, the first root cut off for a while. */
    private static final UnaryOperator<SimulationSettings.Builder> RANDTREE = s -> s.dropProbability(0.05)
            .delayMillis(1, 10).crashRate(0.006).restartDelayMillis(300)
            .partition(Partition.parse("n1|n2,n3,n4,n5,n6@800ms..3500ms"))
            .maxVirtualMillis(5000).stop(SimulationSettings.Stop.AT_LIMIT);

    /** Chord's own scenario (joins, one failure at 3 s), without network faults, as the paper checked it. */
    private static final UnaryOperator<SimulationSettings.Builder> CHORD = s -> s;

    /** Faults drawn at every point within unlimited budgets (drops at the setting's rate, the rest at 1%). */
    private static final FaultBudget ANY_FAULTS = new FaultBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 0);
    /** No fault beyond the scenario's own. */
    private static final FaultBudget NO_FAULTS = new FaultBudget(0, 0, 0, 0);

    /** One bug: where, how explored, within how many paths, and the predicate that must catch it. */
    record Case(String example, int nodes, String bug, UnaryOperator<SimulationSettings.Builder> setting,
                FaultBudget faults, Strategy strategy, long paths, String predicate) {
        Case(String example, int nodes, String bug, UnaryOperator<SimulationSettings.Builder> setting,
             Strategy strategy, long paths, String predicate) {
            this(example, nodes, bug, setting, ANY_FAULTS, strategy, paths, predicate);
        }

        @Override
        public String toString() {
            return example + " " + bug + " by " + strategy.cliName() + " within " + paths + " paths";
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("paxos", 3, "latest-response", PAXOS, Strategy.RANDOM, 400, "global_consistency"),
                new Case("paxos", 3, "latest-response", PAXOS, Strategy.POS, 400, "global_consistency"),
                new Case("paxos", 3, "spec", PAXOS, Strategy.RANDOM, 400, "accepted_round_increasing"),
                new Case("randtree", 6, "sibling-not-removed", RANDTREE, Strategy.RANDOM, 40, "children_siblings_disjoint"),
                new Case("randtree", 6, "stale-child-on-new-root", RANDTREE, Strategy.RANDOM, 150, "root_not_a_child"),
                new Case("randtree", 6, "root-keeps-siblings", RANDTREE, Strategy.RANDOM, 40, "root_has_no_siblings"),
                new Case("randtree", 6, "no-recovery-timer", RANDTREE, Strategy.RANDOM, 40, "recovery_timer_scheduled"),
                new Case("chord", 10, "succ-succ-hash", CHORD, NO_FAULTS, Strategy.RANDOM, 3, "pred_self_iff_succ_self"),
                new Case("chord", 10, "finger-lazy", CHORD, NO_FAULTS, Strategy.RANDOM, 3, "fingers_correct_once_stable"),
                new Case("chord", 10, "finger-boundary", CHORD, NO_FAULTS, Strategy.RANDOM, 3, "fingers_correct_once_stable"));
    }

    @TempDir
    Path temporary;

    private static SimulationSettings settings(Case c, Optional<String> bug) {
        Example example = Examples.byName(c.example()).orElseThrow();
        return c.setting().apply(ExampleSimulation.settings(example, c.nodes(), bug).seed(1)).build();
    }

    private static ExploreSettings explore(Case c, boolean stopAtFirst, int workers) {
        return ExploreSettings.builder().strategy(c.strategy()).seed(1).maxPaths(c.paths()).workers(workers)
                .faults(c.faults())
                .windowMillis(c.strategy() == Strategy.RANDOM ? 0 : 10).stopAtFirst(stopAtFirst).build();
    }

    private static String reproduce(Case c) {
        return "mvn -pl explorer -am verify -Dit.test=ExploreExamplesIT (case: " + c + ")";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void bug_isFound_andItsTraceChecksTheSame(Case c) throws Exception {
        SimulationSettings settings = settings(c, Optional.of(c.bug()));
        Path script = SCRIPTS.resolve(c.example() + ".py");
        ExploreReport report = Explorer.start(settings, explore(c, true, 1), Explorer.Options.defaults().withScript(script)).run();
        System.out.printf("ExploreExamplesIT: %s: %d paths, %d steps, %.1f s, findings %s%n", c, report.paths(),
                report.steps(), report.elapsed().toNanos() / 1e9,
                report.findings().stream().map(f -> f.predicate() + "/" + f.kind() + " path " + f.path() + " step " + f.steps()).toList());
        List<Finding> safety = report.findings().stream().filter(f -> f.kind() == Finding.Kind.SAFETY).toList();
        assertThat(safety).as("safety findings; %s", reproduce(c)).extracting(Finding::predicate).contains(c.predicate());

        report = Explorer.writeEvidence(report, settings, temporary.resolve(c.bug()), ExploreExamplesIT.class.getClassLoader(),
                Optional.of(script), (schedule, trace) -> "deja simulate (test) --schedule " + schedule + " --out " + trace);
        Finding found = report.findings().stream().filter(f -> f.predicate().equals(c.predicate())).findFirst().orElseThrow();
        Finding.Evidence evidence = found.evidence().orElseThrow();
        CheckReport checked = Checker.check(Path.of(evidence.trace()), script, Checker.Options.defaults()
                .withClassLoader(ExploreExamplesIT.class.getClassLoader()).withReuseHistory(false), new InMemoryStateHistory());
        Violation first = checked.violations().stream()
                .filter(v -> v.predicate().equals(c.predicate()) && v.status() == Violation.Status.VIOLATED)
                .findFirst().orElseThrow(() -> new AssertionError("the checker finds no " + c.predicate()
                        + " in " + evidence.trace() + "; " + reproduce(c)));
        // The trace records the order the path ran in, and the checker follows it: it reports the predicate at the entry
        // that began the violating step, the position the explorer's report gives.
        System.out.printf("ExploreExamplesIT: %s: checker position %d, violating step's entry %d%n", c,
                first.event().position(), evidence.stepEntry());
        assertThat(evidence.stepEntry()).as("the violating step's entry in the trace; %s", reproduce(c)).isNotNegative();
        assertThat(first.event().position()).as("position of %s in the written trace; %s", c.predicate(), reproduce(c))
                .isEqualTo(evidence.stepEntry())
                .isEqualTo(evidence.position());
        assertThat(first.event().node().value() + " seq " + first.event().seq()).as("the violating step; %s", reproduce(c))
                .isEqualTo(found.node() + " seq " + found.seq());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cleanCases")
    void fixedProtocol_withTheSameBudget_isClean(Case c) {
        SimulationSettings settings = settings(c, Optional.empty());
        ExploreReport report = Explorer.start(settings, explore(c, false, 2),
                Explorer.Options.defaults().withScript(SCRIPTS.resolve(c.example() + ".py"))).run();
        System.out.printf("ExploreExamplesIT: clean %s: %d paths, %d steps, %.1f s, findings %s%n", c.example(),
                report.paths(), report.steps(), report.elapsed().toNanos() / 1e9,
                report.findings().stream().map(f -> f.predicate() + "/" + f.kind()).toList());
        assertThat(report.paths()).isEqualTo(c.paths());
        assertThat(report.findings()).as("safety findings without the bug; %s", reproduce(c))
                .noneMatch(f -> f.kind() != Finding.Kind.EVENTUALLY_OPEN_AT_END);
    }

    /**
     * One clean run per example and strategy, with the largest budget its bugs were given under {@code -Psoak}, and at
     * most {@value #CLEAN_PATHS} paths of it in the default build.
     */
    static Stream<Case> cleanCases() {
        boolean soak = Boolean.getBoolean("deja.soak");
        return Stream.of(
                new Case("paxos", 3, "none", PAXOS, Strategy.RANDOM, 400, ""),
                new Case("paxos", 3, "none", PAXOS, Strategy.POS, 400, ""),
                new Case("randtree", 6, "none", RANDTREE, Strategy.RANDOM, 150, ""),
                new Case("chord", 10, "none", CHORD, NO_FAULTS, Strategy.RANDOM, 3, ""))
                .map(c -> soak ? c : new Case(c.example(), c.nodes(), c.bug(), c.setting(), c.faults(), c.strategy(),
                        Math.min(c.paths(), CLEAN_PATHS), c.predicate()));
    }
}
