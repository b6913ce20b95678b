package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ExploreSmokeIT {
    @Test
    void smoke() {
        SimulationSettings settings = ExampleSimulation.settings(new PaxosExample(), 7, Optional.of("latest-response"))
                .dropProbability(0.3).delayMillis(1, 100).build();
        for (Strategy strategy : new Strategy[] {Strategy.RANDOM, Strategy.POS, Strategy.PCT}) {
            ExploreReport none = Explorer.start(settings, ExploreSettings.builder().strategy(strategy).maxPaths(200)
                    .windowMillis(strategy == Strategy.RANDOM ? 0 : 100).faults(new FaultBudget(Integer.MAX_VALUE, 0, 0, 0)).build(),
                    Explorer.Options.defaults()).run();
            System.out.println(strategy + " no script: " + none.paths() + " paths " + none.steps() + " steps "
                    + (long) none.stepsPerSecond() + " steps/s " + none.elapsed());
            ExploreReport report = Explorer.start(settings, ExploreSettings.builder().strategy(strategy).maxPaths(200)
                            .windowMillis(strategy == Strategy.RANDOM ? 0 : 100).faults(new FaultBudget(Integer.MAX_VALUE, 0, 0, 0)).build(),
                    Explorer.Options.defaults().withScript(Path.of("../scripts/paxos.py"))).run();
            System.out.println(strategy + " script: " + report.paths() + " paths " + report.steps() + " steps "
                    + (long) report.stepsPerSecond() + " steps/s " + report.elapsed() + " " + report.findings());
        }
        assertThat(true).isTrue();
    }
}
