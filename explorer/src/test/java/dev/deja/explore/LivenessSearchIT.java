package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.sim.SimulationSettings;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
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
 * </ul>
 */
class LivenessSearchIT {
    private static final Path SCRIPTS = Path.of("..", "scripts", "liveness");
    private static final int DEPTH = Integer.getInteger("deja.livenessDepth", 1500);
    private static final int WALKS = Integer.getInteger("deja.livenessWalks", 3);

    @TempDir
    Path temporary;

    private static SimulationSettings settings(String example, int nodes, Optional<String> bug) {
        return ExampleSimulation.settings(Examples.byName(example).orElseThrow(), nodes, bug).seed(1)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).stop(SimulationSettings.Stop.AT_LIMIT)
                .build();
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
        String before = logBytes(Path.of(evidence.liveTrace().get()));
        LivenessSearch.writeEvidence(found, settings, temporary.resolve("again"), LivenessSearchIT.class.getClassLoader(),
                (schedule, trace) -> "deja simulate (test) --schedule " + schedule + " --out " + trace,
                (violating, other) -> "");
        assertThat(logBytes(temporary.resolve("again").resolve("all_nodes-live.trace"))).isEqualTo(before);
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

    /** The predicates the checker reports still false at the end of {@code trace}. */
    private static List<String> openAtEnd(Path trace, Path script) {
        CheckReport checked = Checker.check(trace, script, Checker.Options.defaults()
                .withClassLoader(LivenessSearchIT.class.getClassLoader()).withReuseHistory(false)
                .withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
        return checked.violations().stream().filter(v -> v.kind() == Violation.Kind.EVENTUALLY
                && v.status() == Violation.Status.VIOLATED && v.endPosition().isEmpty()).map(Violation::predicate).toList();
    }

    private static String logBytes(Path trace) throws Exception {
        StringBuilder out = new StringBuilder();
        try (Stream<Path> files = Files.walk(trace.resolve("nodes"))) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                out.append(trace.relativize(file)).append(' ').append(java.util.HexFormat.of().formatHex(
                        java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)))).append('\n');
            }
        }
        return out.toString();
    }
}
