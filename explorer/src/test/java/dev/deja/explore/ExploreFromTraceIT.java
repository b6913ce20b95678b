package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExploreFromTraceIT {
    private static final Path SCRIPTS = Path.of("..", "scripts");
    private static final ClassLoader LOADER = ExploreFromTraceIT.class.getClassLoader();

    @TempDir
    Path temporary;

    private static SimulationSettings paxos(long seed) {
        return ExampleSimulation.settings(Examples.byName("paxos").orElseThrow(), 3, Optional.of("latest-response"))
                .dropProbability(0.3).delayMillis(1, 100).seed(seed).build();
    }

    private static CheckReport check(Path trace) {
        return Checker.check(trace, SCRIPTS.resolve("paxos.py"), Checker.Options.defaults().withClassLoader(LOADER)
                .withReuseHistory(false), new InMemoryStateHistory());
    }

    @Test
    void smoke() {
        Path recorded = temporary.resolve("recorded");
        Simulator.run(paxos(3), recorded, Simulator.Options.of(paxos(3)).withClassLoader(LOADER));
        CheckReport checked = check(recorded);
        System.out.println("recorded violations: " + checked.violations().stream().map(v -> v.predicate() + "@" + v.event().position() + " " + v.status()).toList());
        TraceStart start = TraceStart.of(recorded, 40);
        System.out.println("entries " + start.recording().entries() + " calls " + start.handlerCalls());
        Path continued = temporary.resolve("continued");
        SimulationSettings settings = paxos(5);
        Simulator.run(settings, continued, Simulator.Options.of(settings).withClassLoader(LOADER).withStart(start));
        ReplayResult replayed = Replayer.replay(Trace.open(continued), Replayer.Options.defaults().withClassLoader(LOADER));
        System.out.println("replayed " + replayed.entries() + " divergences " + replayed.divergences());
        assertThat(replayed.divergences()).isEmpty();
        ExploreReport report = Explorer.start(settings, ExploreSettings.builder().seed(1).maxPaths(200).workers(1).stopAtFirst(true)
                        .faults(new FaultBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, 0)).build(),
                Explorer.Options.defaults().withScript(SCRIPTS.resolve("paxos.py")).withStart(start)).run();
        System.out.printf("%d paths %d steps %.1f s findings %s%n", report.paths(), report.steps(), report.elapsed().toNanos() / 1e9,
                report.findings().stream().map(f -> f.predicate() + "/" + f.kind() + " path " + f.path() + " step " + f.steps()).toList());
    }
}
