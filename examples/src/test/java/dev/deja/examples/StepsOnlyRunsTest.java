package dev.deja.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An in-memory run that builds no entries and hands immutable messages over as they are ({@code STEPS_ONLY}, what
 * the explorer uses without predicates) is the same run as one that builds entries and encodes every message: the
 * same questions to the choice source in the same order, the same steps, the same node output and the same result.
 * A schedule recorded from the first therefore writes, through {@code deja simulate --schedule}, the trace of the run
 * the search saw.
 */
class StepsOnlyRunsTest {
    private static final long SEEDS = 3;

    @ParameterizedTest
    @ValueSource(strings = {"paxos", "chord", "store", "randtree", "lockserver"})
    void stepsOnly_withFaultsAndCrashes_asksAndDoesWhatAnEncodingRunDoes(String name) {
        Example example = Examples.byName(name).orElseThrow();
        Optional<String> bug = example.bugs().keySet().stream().findFirst();
        for (long seed = 1; seed <= SEEDS; seed++) {
            SimulationSettings settings = ExampleSimulation.settings(example, bug).seed(seed).dropProbability(0.2)
                    .duplicateProbability(0.1).delayMillis(1, 60).crashRate(0.002).restartDelayMillis(200)
                    .maxSteps(1_500).build();
            Run encoded = run(settings, Simulator.Detail.ENTRIES);
            Run shared = run(settings, Simulator.Detail.STEPS_ONLY);
            String reproduce = "seed " + seed + " of " + name + " (" + bug.orElse("no bug")
                    + "): mvn -B -o -q -pl examples -am verify -Dtest=StepsOnlyRunsTest -Dsurefire.failIfNoSpecifiedTests=false";
            assertThat(shared.questions()).as(reproduce).isEqualTo(encoded.questions());
            assertThat(shared.steps()).as(reproduce).isEqualTo(encoded.steps());
            assertThat(shared.output()).as(reproduce).isEqualTo(encoded.output());
            assertThat(withoutDuration(shared.result())).as(reproduce).isEqualTo(withoutDuration(encoded.result()));
            assertThat(encoded.steps()).as(reproduce).hasSizeGreaterThan(10);
            assertThat(shared.sharedDeliveries()).as("deliveries of messages handed over as they are, " + reproduce)
                    .isPositive();
            assertThat(encoded.sharedDeliveries()).as(reproduce).isZero();
        }
    }

    private record Run(List<String> questions, List<String> steps, List<String> output, SimulationResult result,
                       long sharedDeliveries) {
    }

    private static Run run(SimulationSettings settings, Simulator.Detail detail) {
        Asking source = new Asking(ChoiceSource.seeded(settings.seed()));
        List<String> steps = new ArrayList<>();
        List<String> output = new ArrayList<>();
        long[] sharedDeliveries = {0};
        SimulationResult result = Simulator.runInMemory(settings, Simulator.Options.of(settings).withChoices(source)
                .withNodeOutput(output::add).withDetail(detail).withObserver((step, view) -> {
                    if (step.event().kind() == ChoicePoint.EventKind.DELIVERY && step.event().contentHash() == 0) {
                        sharedDeliveries[0]++; // no bytes were made, so there are none to hash
                    }
                    steps.add(step.step() + " " + Asking.describe(step.event()) + " " + view.virtualMillis() + " "
                            + view.pending().stream().map(Asking::describe).toList());
                    return true;
                }));
        return new Run(source.asked, steps, output, result, sharedDeliveries[0]);
    }

    private static SimulationResult withoutDuration(SimulationResult result) {
        return new SimulationResult(result.steps(), result.entries(), result.virtualMillis(), result.crashes(),
                result.dropped(), result.duplicated(), result.ending(), java.time.Duration.ZERO);
    }

    /** Passes every question on and writes it down with its answer. */
    private static final class Asking implements ChoiceSource {
        private final ChoiceSource inner;
        final List<String> asked = new ArrayList<>();

        Asking(ChoiceSource inner) {
            this.inner = inner;
        }

        @Override
        public int pick(ChoicePoint point, int options) {
            int answer = inner.pick(point, options);
            asked.add("pick " + describe(point) + " -> " + answer);
            return answer;
        }

        @Override
        public boolean chance(ChoicePoint point, double probability) {
            boolean answer = inner.chance(point, probability);
            asked.add("chance " + describe(point) + " -> " + answer);
            return answer;
        }

        @Override
        public long between(ChoicePoint point, long min, long max) {
            long answer = inner.between(point, min, max);
            asked.add("between " + describe(point) + " -> " + answer);
            return answer;
        }

        @Override
        public long bits(ChoicePoint point) {
            long answer = inner.bits(point);
            asked.add("bits " + describe(point) + " -> " + answer);
            return answer;
        }

        /** The point without the message contents' hash, which a shared message does not have. */
        private static String describe(ChoicePoint point) {
            if (point instanceof ChoicePoint.NextEvent next) {
                return "next " + next.step() + " " + next.events().stream().map(Asking::describe).toList();
            }
            return point.toString();
        }

        static String describe(ChoicePoint.Enabled event) {
            return event.describe() + "@" + event.dueMillis() + "#" + event.id() + "<" + event.causeStep();
        }
    }
}
