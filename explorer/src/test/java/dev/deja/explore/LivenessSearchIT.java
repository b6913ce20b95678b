package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.check.testing.TraceBytes;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.examples.randtree.RandTreeNode;
import dev.deja.node.NodeId;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The liveness search on the examples (MaceMC sections 3.2 and 4.4), kept short: one or two paths, a few walks, a
 * small dmax (larger with {@code -Psoak}, through {@code -Ddeja.livenessDepth} and {@code -Ddeja.livenessWalks}).
 *
 * <ul>
 *   <li>Chord with {@code succ-succ-hash} (the successor's successor kept as a hash): once the scenario's node fails,
 *       its predecessor cannot repair the ring, and AllNodes (every live node on one successor cycle) stays false.
 *       The search names the failure as the critical transition, verdict C1, and writes the violating run and the
 *       nearest live run as traces that the checker reads the same way: AllNodes false to the end of the first,
 *       true at the end of the second. The fixed protocol's paths all end live.</li>
 *   <li>RandTree: without the bug OneRoot holds on every path from the first step; with
 *       {@code no-recovery-timer} the bootstrap never sends heartbeats, its children time out, form a second tree
 *       and are merged back by their probes, again and again, so OneRoot turns false on every path.</li>
 *   <li>RandTree in MaceMC's scenario ({@code topology=two-trees}: only the bootstrap knows the second tree): with
 *       {@code no-recovery-timer} the two trees never merge; the search names the bootstrap's self-join, the step
 *       that left its recovery timer unscheduled, verdict C1, with a nearest live run from the step before. The
 *       fixed protocol's trees merge on every path. A 20 ms timer window, dmax 500 (the shared one with
 *       {@code -Psoak}).</li>
 * </ul>
 */
class LivenessSearchIT {
    private static final Path SCRIPTS = Path.of("..", "scripts", "liveness");
    private static final int DEPTH = Integer.getInteger("deja.livenessDepth", 1500);
    private static final int WALKS = Integer.getInteger("deja.livenessWalks", 3);

    @TempDir
    Path temporary;

    /** MaceMC's RandTree scenario: only the bootstrap knows the second tree's nodes. */
    private static final Map<String, String> TWO_TREES = Map.of("topology", "two-trees");
    /**
     * A timer error window (twice the longest message delay), so that a walk may run another pending event before the
     * bootstrap's start timer, as MaceMC's walks pick any pending event: from the step before the bootstrap's
     * self-join that is the only way to still see one root, since the bug is in every walk. (A window of a whole
     * recovery period, 100 ms, delays heartbeats enough that even the fixed protocol flaps.)
     */
    private static final long TWO_TREES_WINDOW_MILLIS = 20;
    /** dmax for two-trees: a dead walk runs to it, and the fixed protocol is live for good within 100 steps. */
    private static final int TWO_TREES_DEPTH = Boolean.getBoolean("deja.soak") ? DEPTH : 500;
    private static final String TWO_TREES_SOAK = Boolean.getBoolean("deja.soak") ? " -Ddeja.soak=true" : "";

    private static SimulationSettings settings(String example, int nodes, Optional<String> bug) {
        return settings(example, nodes, bug, Map.of());
    }

    private static SimulationSettings settings(String example, int nodes, Optional<String> bug,
                                               Map<String, String> args) {
        return ExampleSimulation.settings(Examples.byName(example).orElseThrow(), nodes, bug, args).seed(1)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).stop(SimulationSettings.Stop.AT_LIMIT)
                .build();
    }

    private static ExploreSettings twoTreesExplore(int paths, int workers) {
        return ExploreSettings.builder().seed(1).maxPaths(paths).maxDepth(TWO_TREES_DEPTH).workers(workers)
                .walks(WALKS).windowMillis(TWO_TREES_WINDOW_MILLIS).build();
    }

    private static ExploreSettings explore(int paths, int workers) {
        return ExploreSettings.builder().seed(1).maxPaths(paths).maxDepth(DEPTH).workers(workers).walks(WALKS).build();
    }

    private static String reproduce(String test) {
        return "mvn -pl explorer -am verify -Dit.test=LivenessSearchIT#" + test + " -Ddeja.livenessDepth=" + DEPTH
                + " -Ddeja.livenessWalks=" + WALKS;
    }

    @Test
    void chordSuccSuccHash_allNodes_criticalTransitionIsTheFailure() throws Exception {
        SimulationSettings settings = settings("chord", 5, Optional.of("succ-succ-hash"));
        Path script = SCRIPTS.resolve("chord_all_nodes.py");
        Explorer.Options options = Explorer.Options.defaults().withScript(script);
        ExploreSettings explore = explore(1, 2);
        ExploreReport report = Explorer.start(settings, explore, options).run();
        long start = System.nanoTime();
        report = Explorer.searchLiveness(report, settings, explore, options);
        Liveness liveness = report.liveness().getFirst();
        System.out.printf("LivenessSearchIT: chord succ-succ-hash: %s, search %.1f s%n", liveness,
                (System.nanoTime() - start) / 1e9);
        assertThat(liveness.predicate()).isEqualTo("all_nodes");
        assertThat(liveness.suspected()).as("paths ending with all_nodes false; %s", reproduce("chordSuccSuccHash"))
                .isEqualTo(1);
        CriticalTransition searched = liveness.critical().orElseThrow();
        CriticalTransition found = searched;
        assertThat(found.verdict()).as("%s; %s", found, reproduce("chordSuccSuccHash"))
                .isEqualTo(CriticalTransition.Verdict.C1_DEAD);
        assertThat(found.node()).isEqualTo("n5");
        assertThat(found.event()).isEqualTo("receive Fail from client");
        assertThat(found.message()).isEqualTo("Fail");
        assertThat(found.lastRecoverable()).isEqualTo(found.step() - 1);
        CriticalTransition.Probe dead = found.probes().stream().filter(p -> p.prefix() == searched.step()).findFirst()
                .orElseThrow();
        assertThat(dead.recovers()).isFalse();
        assertThat(dead.walks()).isEqualTo(WALKS);
        CriticalTransition.LiveWalk live = found.nearestLive().orElseThrow();
        assertThat(live.prefix()).isEqualTo(found.step() - 1);
        assertThat(live.liveAtStep()).isGreaterThanOrEqualTo(found.step());

        found = LivenessSearch.writeEvidence(found, settings, temporary, LivenessSearchIT.class.getClassLoader(),
                (schedule, trace) -> "deja simulate (test) --schedule " + schedule + " --out " + trace,
                (violating, other) -> "deja view " + violating + " --compare " + other);
        CriticalTransition.Evidence evidence = found.evidence().orElseThrow();
        assertThat(openAtEnd(Path.of(evidence.violatingTrace()), script)).as("all_nodes in the violating trace")
                .contains("all_nodes");
        assertThat(openAtEnd(Path.of(evidence.liveTrace().orElseThrow()), script)).as("all_nodes in the live trace")
                .doesNotContain("all_nodes");
        assertThat(evidence.compareCommand()).contains("deja view " + evidence.violatingTrace() + " --compare "
                + evidence.liveTrace().get());
        // The schedules make the same runs again, byte for byte.
        String before = TraceBytes.nodeLogDigests(Path.of(evidence.liveTrace().get()));
        LivenessSearch.writeEvidence(found, settings, temporary.resolve("again"), LivenessSearchIT.class.getClassLoader(),
                (schedule, trace) -> "deja simulate (test) --schedule " + schedule + " --out " + trace,
                (violating, other) -> "");
        assertThat(TraceBytes.nodeLogDigests(temporary.resolve("again").resolve("all_nodes-live.trace"))).isEqualTo(before);
    }

    @Test
    void chordFixed_allNodes_everyPathEndsLive() {
        SimulationSettings settings = settings("chord", 5, Optional.empty());
        ExploreReport report = Explorer.start(settings, explore(1, 1),
                Explorer.Options.defaults().withScript(SCRIPTS.resolve("chord_all_nodes.py"))).run();
        Liveness liveness = report.liveness().getFirst();
        System.out.println("LivenessSearchIT: chord fixed: " + liveness);
        assertThat(liveness.paths()).isEqualTo(1);
        assertThat(liveness.suspected()).as("%s", reproduce("chordFixed")).isZero();
        assertThat(liveness.byDepth().getLast().paths()).isEqualTo(1);
    }

    @Test
    void randTree_oneRoot_holdsThroughoutWithoutTheBug_andFlapsWithIt() {
        Path script = SCRIPTS.resolve("randtree_one_root.py");
        ExploreReport fixed = Explorer.start(settings("randtree", 4, Optional.empty()), explore(1, 1),
                Explorer.Options.defaults().withScript(script)).run();
        ExploreReport buggy = Explorer.start(settings("randtree", 4, Optional.of("no-recovery-timer")), explore(1, 1),
                Explorer.Options.defaults().withScript(script)).run();
        Liveness fixedRoot = fixed.liveness().getFirst();
        Liveness buggyRoot = buggy.liveness().getFirst();
        System.out.println("LivenessSearchIT: randtree fixed: " + fixedRoot);
        System.out.println("LivenessSearchIT: randtree no-recovery-timer: " + buggyRoot);
        assertThat(fixedRoot.suspected()).isZero();
        assertThat(fixedRoot.byDepth().getFirst().paths()).as("fixed paths live from the first step; %s",
                reproduce("randTree")).isEqualTo(1);
        assertThat(buggyRoot.paths()).isEqualTo(1);
        assertThat(buggyRoot.byDepth().getFirst().paths()).as("buggy paths live from the first step; %s",
                reproduce("randTree")).isZero();
    }

    @Test
    void randTreeTwoTreesNoRecoveryTimer_oneRoot_criticalTransitionIsTheBootstrapJoiningItself() {
        SimulationSettings settings = settings("randtree", 5, Optional.of("no-recovery-timer"), TWO_TREES);
        Explorer.Options options = Explorer.Options.defaults().withScript(SCRIPTS.resolve("randtree_one_root.py"));
        ExploreSettings explore = twoTreesExplore(1, 1);
        String reproduce = "seed 1; " + reproduce("randTreeTwoTreesNoRecoveryTimer") + TWO_TREES_SOAK;
        System.out.println("LivenessSearchIT: randtree two-trees no-recovery-timer, " + reproduce);
        ExploreReport report = Explorer.searchLiveness(Explorer.start(settings, explore, options).run(), settings,
                explore, options);
        Liveness liveness = report.liveness().getFirst();
        System.out.println("LivenessSearchIT: randtree two-trees no-recovery-timer: " + liveness.byDepth()
                + ", suspected " + liveness.suspected() + " of " + liveness.paths());
        assertThat(liveness.predicate()).isEqualTo("one_root");
        assertThat(liveness.suspected()).as("paths ending with one_root false; %s", reproduce).isEqualTo(1);
        CriticalTransition found = liveness.critical().orElseThrow();
        String brief = brief(found) + "; " + reproduce;
        System.out.println("LivenessSearchIT: " + brief);
        assertThat(found.verdict()).as(brief).isEqualTo(CriticalTransition.Verdict.C1_DEAD);
        assertThat(found.node()).as(brief).isEqualTo("n1");
        assertThat(found.event()).as(brief).isEqualTo("timer start-join");
        assertThat(found.message()).isEmpty();
        assertThat(found.lastRecoverable()).isEqualTo(found.step() - 1);
        CriticalTransition.Probe dead = found.probes().stream().filter(p -> p.prefix() == found.step()).findFirst()
                .orElseThrow();
        assertThat(dead.recovers()).isFalse();
        assertThat(dead.walks()).isEqualTo(WALKS);
        CriticalTransition.LiveWalk live = found.nearestLive().orElseThrow();
        assertThat(live.prefix()).as(brief).isEqualTo(found.step() - 1);
        assertThat(live.liveAtStep()).as(brief).isGreaterThanOrEqualTo(found.step());

        // The critical step is the one in which n1 joined itself and left its recovery timer unscheduled.
        Map<String, String> n1 = new LinkedHashMap<>();
        Schedule violating = found.violating().orElseThrow();
        Simulator.runInMemory(settings, Simulator.Options.of(settings).withChoices(violating.replay("the violating run"))
                .withExploration(violating.exploration()).withClassLoader(LivenessSearchIT.class.getClassLoader())
                .withObserver((step, view) -> {
                    RandTreeNode node = (RandTreeNode) view.liveNodes().get(new NodeId("n1"));
                    String state = node.state() + " root " + node.root() + " timer " + node.recoveryTimerScheduled();
                    n1.put(step.step() == found.step() - 1 ? "after" : "before", state);
                    return step.step() < found.step() - 1;
                }));
        assertThat(n1).as("n1 around step %d; %s", found.step(), brief)
                .containsEntry("before", "INIT root n1 timer false")
                .containsEntry("after", "JOINED root n1 timer false");
    }

    @Test
    void randTreeTwoTreesFixed_oneRoot_everyWalkReachesALiveState() {
        ExploreSettings explore = twoTreesExplore(WALKS, 1);
        ExploreReport report = Explorer.start(settings("randtree", 5, Optional.empty(), TWO_TREES), explore,
                Explorer.Options.defaults().withScript(SCRIPTS.resolve("randtree_one_root.py"))).run();
        Liveness liveness = report.liveness().getFirst();
        System.out.println("LivenessSearchIT: randtree two-trees fixed (seed 1): " + liveness);
        assertThat(liveness.paths()).isEqualTo(WALKS);
        assertThat(liveness.suspected()).as("seed 1; %s", reproduce("randTreeTwoTreesFixed") + TWO_TREES_SOAK)
                .isZero();
        assertThat(liveness.byDepth().getLast().paths()).isEqualTo(WALKS);
        assertThat(liveness.byDepth().getFirst().paths()).as("paths on which the two trees stood apart at first")
                .isZero();
    }

    /** A critical transition without its schedules, for messages. */
    private static String brief(CriticalTransition found) {
        return found.verdict().label() + " at step " + found.step() + ", " + found.node() + " " + found.event()
                + ", last recoverable " + found.lastRecoverable() + ", probes " + found.probes() + ", nearest live "
                + found.nearestLive().map(w -> "from " + w.prefix() + " live at " + w.liveAtStep()).orElse("none");
    }

    /** The predicates the checker reports still false at the end of {@code trace}. */
    private static List<String> openAtEnd(Path trace, Path script) {
        CheckReport checked = Checker.check(trace, script, Checker.Options.defaults()
                .withClassLoader(LivenessSearchIT.class.getClassLoader()).withReuseHistory(false)
                .withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
        return checked.violations().stream().filter(v -> v.kind() == Violation.Kind.EVENTUALLY
                && v.status() == Violation.Status.VIOLATED && v.endPosition().isEmpty()).map(Violation::predicate).toList();
    }
}
