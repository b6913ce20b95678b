package dev.deja.examples.testing;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Runs an example on the simulator without writing a trace, for the examples' fast tests: the same engine, the
 * same {@link dev.deja.runtime.NodeRunner} and the same seeded {@link ChoiceSource} as {@code deja simulate}, with a
 * {@link StepObserver} that sees every node's live object after each step. A test may have one node crash right
 * after its first step at or past a virtual time; the choice source answers that crash point, so the rest of the
 * run is still decided by the seed.
 */
public final class InMemoryRuns {
    private InMemoryRuns() {
    }

    /** {@code node} crashes after its first step at or after {@code atMillis} of virtual time, and restarts. */
    public record Crash(NodeId node, long atMillis) {
        public static Optional<Crash> of(String node, long atMillis) {
            return Optional.of(new Crash(new NodeId(node), atMillis));
        }
    }

    /**
     * One run.
     *
     * @param result  what the simulator reports
     * @param command the {@code deja simulate} command of the same settings (without the test's crash, if any)
     * @param output  what every node, the workload driver included, wrote with {@code Env.log}
     * @param nodes   the live object of every node that was up at the end, the driver included, by id
     */
    public record Run(SimulationResult result, String command, List<String> output, Map<NodeId, Object> nodes) {
        /** The command, and the crash the test added. */
        public String describe(Optional<Crash> crash) {
            return command + crash.map(c -> " (with " + c.node() + " crashed after its first step at or after "
                    + c.atMillis() + " ms)").orElse("");
        }
    }

    /**
     * Simulates {@code example} with {@code nodes} cluster nodes, {@code bug} and {@code seed}, the settings changed by
     * {@code faults}; {@code watcher} sees every step (and may end the run by returning false).
     */
    public static Run run(Example example, int nodes, Optional<String> bug, long seed,
                          UnaryOperator<SimulationSettings.Builder> faults, Optional<Crash> crash, StepObserver watcher) {
        return run(example, nodes, bug, Map.of(), seed, faults, crash, watcher);
    }

    /** The same with {@code nodeArgs} given to every cluster node (as {@code --arg}). */
    public static Run run(Example example, int nodes, Optional<String> bug, Map<String, String> nodeArgs, long seed,
                          UnaryOperator<SimulationSettings.Builder> faults, Optional<Crash> crash, StepObserver watcher) {
        SimulationSettings settings = faults.apply(ExampleSimulation.settings(example, nodes, bug, nodeArgs).seed(seed))
                .build();
        long[] virtualMillis = {0};
        StepObserver.View[] view = {null};
        List<String> output = new ArrayList<>();
        Simulator.Options options = Simulator.Options.of(settings).withNodeOutput(output::add)
                .withChoices(new CrashAt(ChoiceSource.seeded(seed), crash, virtualMillis))
                .withExploration(new Simulator.Exploration(0, crash.isPresent(), false, 1))
                .withObserver((step, current) -> {
                    view[0] = current;
                    virtualMillis[0] = current.virtualMillis();
                    return watcher.afterStep(step, current);
                });
        SimulationResult result = Simulator.runInMemory(settings, options);
        Map<NodeId, Object> live = view[0] == null ? Map.of() : new TreeMap<>(view[0].liveNodes());
        return new Run(result, ExampleSimulation.commandLine(example, bug, settings, "t"), List.copyOf(output), live);
    }

    /** What the nodes log when a cluster of {@code settings} runs: a handler that throws is logged, not fatal. */
    public static List<String> nodeOutput(SimulationSettings settings) {
        List<String> lines = new ArrayList<>();
        Simulator.runInMemory(settings, Simulator.Options.of(settings).withNodeOutput(lines::add));
        return lines;
    }

    /** The seeded answers, but a crash of the given node at the first crash point of it at or after the time. */
    private static final class CrashAt implements ChoiceSource {
        private final ChoiceSource seeded;
        private final Optional<Crash> crash;
        private final long[] virtualMillis;
        private boolean done;

        CrashAt(ChoiceSource seeded, Optional<Crash> crash, long[] virtualMillis) {
            this.seeded = seeded;
            this.crash = crash;
            this.virtualMillis = virtualMillis;
        }

        @Override
        public int pick(ChoicePoint point, int options) {
            return seeded.pick(point, options);
        }

        @Override
        public boolean chance(ChoicePoint point, double probability) {
            if (point instanceof ChoicePoint.CrashAfter after && crash.isPresent() && !done
                    && after.node().equals(crash.get().node()) && virtualMillis[0] >= crash.get().atMillis()) {
                done = true;
                return true;
            }
            return seeded.chance(point, probability);
        }

        @Override
        public long between(ChoicePoint point, long min, long max) {
            return seeded.between(point, min, max);
        }

        @Override
        public long bits(ChoicePoint point) {
            return seeded.bits(point);
        }
    }
}
