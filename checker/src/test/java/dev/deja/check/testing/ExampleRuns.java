package dev.deja.check.testing;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Simulated runs of the built-in examples checked with their scripts: what every example's bug test does.
 * A run is named by example, bug, seed and the fault settings the test adds, and {@link #command} says how to
 * make the same trace with {@code deja simulate}, so every failure message can tell how to reproduce it.
 *
 * <pre>{@code
 * ExampleRuns.Run run = ExampleRuns.simulate(temporary, "paxos", Optional.of("latest-response"), 22,
 *         settings -> settings.dropProbability(0.3).delayMillis(1, 100));
 * CheckReport report = ExampleRuns.check(run.trace(), "paxos");
 * assertThat(ExampleRuns.findings(report, "global_consistency")).as(run.command()).isNotEmpty();
 * }</pre>
 */
public final class ExampleRuns {
    private ExampleRuns() {
    }

    /** One simulated run: its trace, the simulator's summary, and the command that makes it again. */
    public record Run(Path trace, SimulationResult result, String command) {
    }

    /** The example called {@code name}; fails the test with the list of examples if there is none. */
    public static Example example(String name) {
        return Examples.byName(name).orElseThrow(() -> new AssertionError("no example '" + name + "' among "
                + Examples.all().stream().map(Example::name).toList()));
    }

    /**
     * Simulates {@code example} (default node count) with {@code bug} and {@code seed}, the settings changed by
     * {@code faults}, into a new directory under {@code directory}.
     */
    public static Run simulate(Path directory, String example, Optional<String> bug, long seed,
                               UnaryOperator<SimulationSettings.Builder> faults) {
        Example chosen = example(example);
        return simulate(directory, chosen, ExampleSimulation.settings(chosen, bug).seed(seed), bug, faults);
    }

    /** The same with {@code nodes} cluster nodes. */
    public static Run simulate(Path directory, String example, int nodes, Optional<String> bug, long seed,
                               UnaryOperator<SimulationSettings.Builder> faults) {
        Example chosen = example(example);
        return simulate(directory, chosen, ExampleSimulation.settings(chosen, nodes, bug).seed(seed), bug, faults);
    }

    /** The same with {@code nodeArgs} given to every cluster node (as {@code --arg}). */
    public static Run simulate(Path directory, String example, int nodes, Optional<String> bug,
                               Map<String, String> nodeArgs, long seed, UnaryOperator<SimulationSettings.Builder> faults) {
        Example chosen = example(example);
        return simulate(directory, chosen, ExampleSimulation.settings(chosen, nodes, bug, nodeArgs).seed(seed), bug,
                faults);
    }

    private static Run simulate(Path directory, Example example, SimulationSettings.Builder base,
                                Optional<String> bug, UnaryOperator<SimulationSettings.Builder> faults) {
        SimulationSettings settings = faults.apply(base).build();
        Path trace = directory.resolve(example.name() + "-" + bug.orElse("clean") + "-seed" + settings.seed()
                + "-" + Integer.toHexString(settings.hashCode()));
        String command = ExampleSimulation.commandLine(example, bug, settings, "t");
        SimulationResult result = Simulator.run(settings, trace, Simulator.Options.of(settings).withCommand(command));
        return new Run(trace, result, command);
    }

    /** The script {@code example} names ({@link Example#script()}), in this source tree. */
    public static Path script(String example) {
        Example named = Examples.byName(example).orElseThrow(() -> new IllegalArgumentException("no example " + example));
        return Path.of("..").resolve(named.script().orElseThrow(() ->
                new IllegalArgumentException("example " + example + " names no predicate script")));
    }

    /** Checks {@code trace} with the script {@code example} names, history in memory, script output discarded. */
    public static CheckReport check(Path trace, String example) {
        return Checker.check(trace, script(example),
                Checker.Options.defaults().withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
    }

    /** The findings of {@code predicate} in {@code report}, in position order. */
    public static List<Violation> findings(CheckReport report, String predicate) {
        return report.violations().stream().filter(v -> v.predicate().equals(predicate)).toList();
    }
}
