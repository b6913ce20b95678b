package dev.deja.sim;

import dev.deja.sim.internal.SimulationEngine;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a cluster in this process on virtual time, recording every node into a trace of the same format as a
 * deployment, so that replay, check and view work on it unchanged. Every decision goes through one
 * {@link ChoiceSource}: the same settings and the same answers give the same trace, byte for byte.
 *
 * <p>{@link #runInMemory} runs the same way without writing anything, for search: the answers of such a run,
 * given to {@link #run} again, write the trace of exactly that run.
 *
 * <p>Crashes happen between handler calls; storage writes not yet synced are lost. Single-threaded.
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * What exploration adds to a run's choice points; {@link #NONE} for plain simulation.
     *
     * @param windowMillis     events due within this many milliseconds of the earliest pending one are all enabled,
     *                         so that a scheduling choice may run a later one first (MODIST's timer error window);
     *                         0 enables only the events due at the same instant
     * @param crashPoints      whether to ask, after each step of a cluster node, whether that node crashes now
     *                         ({@link ChoicePoint.CrashAfter})
     * @param isolationPoints  whether to ask, after each step of a cluster node, whether it is cut off from the others
     *                         now ({@link ChoicePoint.Isolate})
     * @param isolationMillis  how long such a partition lasts
     */
    public record Exploration(long windowMillis, boolean crashPoints, boolean isolationPoints, long isolationMillis) {
        /** No window, no crash or partition points: the choice points of {@code deja simulate}. */
        public static final Exploration NONE = new Exploration(0, false, false, 1);

        public Exploration {
            if (windowMillis < 0 || isolationMillis < 1) {
                throw new IllegalArgumentException("the window must not be negative and partitions must last at least 1 ms");
            }
        }
    }

    /** What a run in memory builds besides the run itself; a run that writes a trace always builds everything. */
    public enum Detail {
        /**
         * Every recorded node's entries are built (and dropped), and the observer sees each step's first entry;
         * messages travel encoded, as they do into a trace.
         */
        ENTRIES,
        /**
         * No entries are built and {@link SimulatedStep#entry()} is null; messages (and timer tags) that
         * {@link dev.deja.trace.MessageCodec#shareable} allows reach their receiver as they are, neither encoded nor
         * digested, and pending deliveries of such messages have a {@link ChoicePoint.Enabled#contentHash()} of 0.
         * The same run as with {@link #ENTRIES}, answer for answer, and the cheapest: for searches that read neither
         * entries nor message contents.
         */
        STEPS_ONLY
    }

    /** What else a run may be given besides its settings. */
    public record Options(ChoiceSource choices, ClassLoader classLoader, Consumer<String> nodeOutput, String command,
                          Exploration exploration, StepObserver observer, Optional<TraceStart> start,
                          Detail detail) {
        /** The seeded source of {@code settings}, this class's loader, node output discarded, entries built. */
        public static Options of(SimulationSettings settings) {
            return new Options(ChoiceSource.seeded(settings.seed()), Simulator.class.getClassLoader(), line -> { },
                    "", Exploration.NONE, StepObserver.NONE, Optional.empty(), Detail.ENTRIES);
        }

        public Options withChoices(ChoiceSource source) {
            return new Options(source, classLoader, nodeOutput, command, exploration, observer, start, detail);
        }

        public Options withClassLoader(ClassLoader loader) {
            return new Options(choices, loader, nodeOutput, command, exploration, observer, start, detail);
        }

        public Options withNodeOutput(Consumer<String> output) {
            return new Options(choices, classLoader, output, command, exploration, observer, start, detail);
        }

        /** The command line that started the run, kept in {@code trace.json}. */
        public Options withCommand(String text) {
            return new Options(choices, classLoader, nodeOutput, text, exploration, observer, start, detail);
        }

        public Options withExploration(Exploration value) {
            return new Options(choices, classLoader, nodeOutput, command, value, observer, start, detail);
        }

        /**
         * Starts the run from the state a recorded trace reached, rebuilt by replay (see {@link TraceStart}), instead of
         * booting every node afresh.
         */
        public Options withStart(TraceStart value) {
            return new Options(choices, classLoader, nodeOutput, command, exploration, observer, Optional.of(value),
                    detail);
        }

        public Options withObserver(StepObserver value) {
            return new Options(choices, classLoader, nodeOutput, command, exploration, value, start, detail);
        }

        /** What an in-memory run builds; ignored by a run that writes a trace. */
        public Options withDetail(Detail value) {
            return new Options(choices, classLoader, nodeOutput, command, exploration, observer, start, value);
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

    /** Runs without writing a trace: nodes record nothing; the observer sees every step. */
    public static SimulationResult runInMemory(SimulationSettings settings, Options options) {
        return new SimulationEngine(settings, null, options).run();
    }
}
