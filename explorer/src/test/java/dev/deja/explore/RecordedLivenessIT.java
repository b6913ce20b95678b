package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock server's livelock (WiDS Checker section 4.2; {@code release-retry-livelock}): a recorded run of a server and
 * two clients (seed 6, 2 s of virtual time, 91 handler calls) ends at its time limit with the server's pending queue not empty, an open
 * {@code queue_empty} span in the checker's report. Random walks from the state replay rebuilds at the end of the
 * recording classify it; the figures behind the verdict are printed and must add up.
 */
class RecordedLivenessIT {
    private static final Path SCRIPT = Path.of("..", "scripts", "lockserver.py");
    private static final ClassLoader LOADER = RecordedLivenessIT.class.getClassLoader();
    private static final String REPRODUCE = "mvn -pl explorer -am verify -Dit.test=RecordedLivenessIT";

    @TempDir
    Path temporary;

    private static SimulationSettings.Builder lockServer() {
        return ExampleSimulation.settings(Examples.byName("lockserver").orElseThrow(), 3,
                Optional.of("release-retry-livelock")).seed(6).maxVirtualMillis(2000);
    }

    @Test
    void openPendingSpan_ofALivelockedRecording_isClassifiedWithItsFigures() {
        Path recorded = temporary.resolve("lock");
        SimulationResult result = Simulator.run(lockServer().build(), recorded,
                Simulator.Options.of(lockServer().build()).withClassLoader(LOADER));
        assertThat(result.ending()).as("the recorded run's ending").isEqualTo(SimulationResult.Ending.TIME_LIMIT);
        CheckReport checked = Checker.check(recorded, SCRIPT, Checker.Options.defaults().withClassLoader(LOADER)
                .withReuseHistory(false), new InMemoryStateHistory());
        Violation open = checked.violations().stream().filter(Violation::openAtEnd).findFirst()
                .orElseThrow(() -> new AssertionError("no open span in the recording's report; " + REPRODUCE));
        assertThat(open.predicate()).isEqualTo("queue_empty");

        TraceStart.Recording recording = TraceStart.Recording.read(recorded);
        // Short for the default build: K = 2 walks, each up to 300 steps past the recording's end.
        int walks = 2;
        int maxDepth = (int) recording.handlerCalls() + 300;
        ExploreSettings explore = ExploreSettings.builder().seed(1).workers(1).maxDepth(maxDepth).build();
        SimulationSettings network = lockServer().stop(SimulationSettings.Stop.AT_LIMIT)
                .maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS).build();
        long startNanos = System.nanoTime();
        RecordedLiveness.Classification verdict = RecordedLiveness.classify(recording, open.predicate(),
                open.event().position(), network, explore, walks, true, Explorer.Options.defaults().withScript(SCRIPT));
        System.out.printf("RecordedLivenessIT: queue_empty opened at %d (step %d of %d): %s, %d of %d walks live "
                        + "(depths %s), dmax %d, %d walk steps, %.1f s; critical %s%n", verdict.openedAt(),
                verdict.openedAtStep(), verdict.endStep(), verdict.verdict().label(), verdict.live(), verdict.walks(),
                verdict.liveDepths(), verdict.maxDepth(), verdict.walkSteps(), (System.nanoTime() - startNanos) / 1e9,
                verdict.critical().map(c -> c.verdict().label() + " at step " + c.step() + " " + c.node() + " "
                        + c.event() + " probes " + c.probes()).orElse("-"));
        assertThat(verdict.walks()).isEqualTo(walks);
        assertThat(verdict.endStep()).isEqualTo(recording.handlerCalls());
        assertThat(verdict.openedAtStep()).isBetween(1L, verdict.endStep());
        assertThat(verdict.liveDepths()).hasSize(verdict.live()).allMatch(depth -> depth >= 1 && depth <= maxDepth);
        assertThat(verdict.verdict()).isEqualTo(verdict.live() > 0 ? RecordedLiveness.Verdict.TRANSIENT
                : RecordedLiveness.Verdict.DEAD);
        assertThat(verdict.walkSteps()).isPositive();
        if (verdict.verdict() == RecordedLiveness.Verdict.DEAD) {
            CriticalTransition critical = verdict.critical().orElseThrow();
            assertThat(critical.step()).as("the critical step lies inside the span; %s", REPRODUCE)
                    .isBetween(verdict.openedAtStep(), verdict.endStep());
            // The nearest live run is a walk from the recording's own state before the critical step.
            critical.nearestLive().ifPresent(live -> {
                assertThat(live.prefix()).isEqualTo(critical.lastRecoverable());
                assertThat(live.start().orElseThrow().position())
                        .isEqualTo(recording.positionAfterHandlerCalls(live.prefix()));
                assertThat(live.schedule().orElseThrow().steps()).isEqualTo(live.liveAtStep());
            });
        }
    }
}
