package dev.deja.sim;

import dev.deja.sim.internal.SimulationEngine;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Runs a cluster in this process on virtual time, recording every node into a trace of the same format as a
 * deployment, so that replay, check and view work on it unchanged. Every decision goes through one
 * {@link ChoiceSource}: the same settings and the same answers give the same trace, byte for byte.
 *
 * <p>Crashes happen between handler calls; storage writes not yet synced are lost. Single-threaded.
 */
public final class Simulator {
    private Simulator() {
    }

    /** What else a run may be given besides its settings. */
    public record Options(ChoiceSource choices, ClassLoader classLoader, Consumer<String> nodeOutput, String command) {
        /** The seeded source of {@code settings}, this class's loader, node output discarded. */
        public static Options of(SimulationSettings settings) {
            return new Options(ChoiceSource.seeded(settings.seed()), Simulator.class.getClassLoader(), line -> { },
                    "");
        }

        public Options withChoices(ChoiceSource source) {
            return new Options(source, classLoader, nodeOutput, command);
        }

        public Options withClassLoader(ClassLoader loader) {
            return new Options(choices, loader, nodeOutput, command);
        }

        public Options withNodeOutput(Consumer<String> output) {
            return new Options(choices, classLoader, output, command);
        }

        /** The command line that started the run, kept in {@code trace.json}. */
        public Options withCommand(String text) {
            return new Options(choices, classLoader, nodeOutput, text);
        }
    }

    /** Runs with the settings' seeded choice source into the new trace directory {@code trace}. */
    public static SimulationResult run(SimulationSettings settings, Path trace) {
        return run(settings, trace, Options.of(settings));
    }

    /** Runs into the new trace directory {@code trace}, which must not exist or be empty. */
    public static SimulationResult run(SimulationSettings settings, Path trace, Options options) {
        return new SimulationEngine(settings, trace, options).run();
    }
}
