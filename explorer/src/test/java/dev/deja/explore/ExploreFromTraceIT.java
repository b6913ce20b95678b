package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code explore --from}: a recorded Paxos run with the latest-response bug (seed 3: 30% loss, 1..100 ms delays) that
 * happens to stay consistent is continued from its 41st entry, a state before any value was chosen. The continued run
 * replays without divergence and begins with the recorded prefix; exploring from there finds the global_consistency
 * violation the recording missed, and the trace written for it (recorded prefix, then the path) checks the same.
 */
class ExploreFromTraceIT {
    private static final Path SCRIPTS = Path.of("..", "scripts");
    private static final ClassLoader LOADER = ExploreFromTraceIT.class.getClassLoader();
    private static final long POSITION = 40;

    @TempDir
    static Path temporary;

    private static Path recorded;

    private static SimulationSettings.Builder network(long seed) {
        return ExampleSimulation.settings(Examples.byName("paxos").orElseThrow(), 3, Optional.of("latest-response"))
                .dropProbability(0.3).delayMillis(1, 100).seed(seed);
    }

    private static SimulationSettings paxos(long seed) {
        return network(seed).build();
    }

    /** The same network for the continuation, which has no workload driver to wait for. */
    private static SimulationSettings continuation(long seed) {
        return network(seed).stop(SimulationSettings.Stop.AT_LIMIT).build();
    }

    @BeforeAll
    static void record() {
        recorded = temporary.resolve("recorded");
        Simulator.run(paxos(3), recorded, Simulator.Options.of(paxos(3)).withClassLoader(LOADER));
    }

    private static CheckReport check(Path trace) {
        return Checker.check(trace, SCRIPTS.resolve("paxos.py"), Checker.Options.defaults().withClassLoader(LOADER)
                .withReuseHistory(false), new InMemoryStateHistory());
    }

    @Test
    void continuedRun_replaysWithoutDivergence_andBeginsWithTheRecordedPrefix() {
        TraceStart start = TraceStart.of(recorded, POSITION);
        Path continued = temporary.resolve("continued");
        SimulationSettings settings = continuation(5);
        Simulator.run(settings, continued, Simulator.Options.of(settings).withClassLoader(LOADER).withStart(start));

        ReplayResult replayed = Replayer.replay(Trace.open(continued), Replayer.Options.defaults().withClassLoader(LOADER));
        assertThat(replayed.divergences()).as("divergences replaying the continued run").isEmpty();
        Map<NodeId, List<TraceEvent>> before = start.recording().logs();
        Map<NodeId, List<TraceEvent>> after = TraceStart.Recording.read(continued).logs();
        assertThat(after.keySet()).isEqualTo(before.keySet());
        long kept = 0;
        for (NodeId node : before.keySet()) {
            // Every recorded entry of a handler call begun at or before the position is in the new trace, unchanged.
            long through = before.get(node).stream().filter(e -> positionOf(start, e) <= POSITION).count();
            List<TraceEvent> prefix = before.get(node).subList(0, (int) through);
            assertThat(after.get(node)).as("the log of %s", node).startsWith(prefix.toArray(TraceEvent[]::new));
            kept += through;
        }
        assertThat(kept).as("recorded entries kept").isGreaterThanOrEqualTo(POSITION + 1);
        assertThat(start.handlerCalls()).isPositive().isLessThan(start.recording().handlerCalls());
    }

    /** The entry's merged position in the recording. */
    private static long positionOf(TraceStart start, TraceEvent entry) {
        long before = 0;
        for (List<TraceEvent> log : start.recording().logs().values()) {
            for (TraceEvent other : log) {
                int order = other.lamport() != entry.lamport() ? Long.compare(other.lamport(), entry.lamport())
                        : other.node().compareTo(entry.node()) != 0 ? other.node().compareTo(entry.node())
                        : Long.compare(other.seq(), entry.seq());
                if (order < 0) {
                    before++;
                }
            }
        }
        return before;
    }

    @Test
    void explore_fromAMidRunPosition_findsTheViolationTheRecordingMissed() {
        Path script = SCRIPTS.resolve("paxos.py");
        assertThat(check(recorded).violations()).as("the recorded run itself")
                .noneMatch(v -> v.predicate().equals("global_consistency"));
        TraceStart start = TraceStart.of(recorded, POSITION);
        SimulationSettings settings = continuation(1);
        ExploreSettings explore = ExploreSettings.builder().seed(1).maxPaths(200).workers(1).stopAtFirst(true)
                .faults(new FaultBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, 0)).build();
        long startNanos = System.nanoTime();
        ExploreReport report = Explorer.start(settings, explore, Explorer.Options.defaults().withScript(script)
                .withStart(start)).run();
        System.out.printf("ExploreFromTraceIT: from position %d (%d handler calls replayed per path): %d paths, %d steps, "
                        + "%.1f s, %.2f paths/s; findings %s%n", POSITION, start.handlerCalls(), report.paths(),
                report.steps(), (System.nanoTime() - startNanos) / 1e9, report.pathsPerSecond(),
                report.findings().stream().map(f -> f.predicate() + "/" + f.kind() + " path " + f.path()
                        + " step " + f.steps()).toList());
        assertThat(report.findings()).as("findings; reproduce: mvn -pl explorer -am verify -Dit.test=ExploreFromTraceIT")
                .anyMatch(f -> f.predicate().equals("global_consistency") && f.kind() == Finding.Kind.SAFETY);

        report = Explorer.writeEvidence(report, settings, temporary.resolve("found"), LOADER, Optional.of(script),
                (schedule, trace) -> "deja simulate --from " + recorded + " --at " + POSITION + " --schedule " + schedule
                        + " --out " + trace, Optional.of(start));
        Finding.Evidence evidence = report.findings().stream().filter(f -> f.predicate().equals("global_consistency"))
                .findFirst().orElseThrow().evidence().orElseThrow();
        Violation first = check(Path.of(evidence.trace())).violations().stream()
                .filter(v -> v.predicate().equals("global_consistency")).findFirst()
                .orElseThrow(() -> new AssertionError("the checker finds no global_consistency in " + evidence.trace()));
        assertThat(first.event().position()).as("the checker's position in the written trace").isEqualTo(evidence.position())
                .isGreaterThan(POSITION);

        // The liveness search's walks from the found path: a prefix inside the replayed part starts from the
        // recording's own state there (what the recording did next is not forced), later ones from the hand-over.
        WalkOrigin origin = WalkOrigin.ofSchedule(settings, report.findings().stream()
                .filter(f -> f.predicate().equals("global_consistency")).findFirst().orElseThrow().schedule(), LOADER,
                Optional.of(start));
        long handOver = start.handlerCalls();
        long inside = handOver / 2;
        assertThat(origin.start(inside).orElseThrow().position()).isEqualTo(start.recording()
                .positionAfterHandlerCalls(inside));
        assertThat(origin.start(handOver + 1)).contains(start);
        long[] replayed = {0};
        origin.run(inside, dev.deja.sim.ChoiceSource.seeded(7), new dev.deja.sim.StepObserver() {
            @Override
            public boolean replayedStep(dev.deja.sim.SimulatedStep step, View view) {
                replayed[0]++;
                return true;
            }

            @Override
            public boolean afterStep(dev.deja.sim.SimulatedStep step, View view) {
                assertThat(step.step()).as("the first step after the rebuilt prefix").isEqualTo(inside);
                return false;
            }
        }, LOADER);
        assertThat(replayed[0]).as("handler calls replayed for prefix %d (hand-over at %d)", inside, handOver)
                .isEqualTo(inside);
        assertThat(origin.schedule(inside, List.of(), inside + 1).orElseThrow().answers())
                .as("a walk's schedule from a recorded prefix holds the walk's answers alone").isEmpty();
    }

    @Test
    void start_outOfRange_failsNamingTheTraceAndTheRange() {
        long entries = TraceStart.of(recorded, 0).recording().entries();
        assertThatThrownBy(() -> TraceStart.of(recorded, entries)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(recorded.toString()).hasMessageContaining("out of range")
                .hasMessageContaining("positions 0 to " + (entries - 1));
    }

    @Test
    void start_withTheNodeClassesMissing_failsNamingTheNodeAndItsClass() throws Exception {
        SimulationSettings settings = continuation(1);
        try (URLClassLoader bare = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Simulator.runInMemory(settings, Simulator.Options.of(settings).withClassLoader(bare)
                    .withStart(TraceStart.of(recorded, POSITION)))).isInstanceOf(ReplayException.class)
                    .hasMessageContaining("node n1").hasMessageContaining("PaxosNode");
        }
    }
}
