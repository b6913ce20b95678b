package dev.deja.explore;

import dev.deja.explore.internal.Evidence;
import dev.deja.explore.internal.ExplorationRun;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.TraceStart;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

/**
 * Searches the runs of a simulated cluster for the ones that break a predicate script (MaceMC, MODIST): every choice
 * the simulator makes is a branch point, paths run in memory with the script's predicates evaluated after every step,
 * and a path that breaks one is kept as its schedule, which {@link #writeEvidence} turns into an ordinary trace.
 *
 * <pre>{@code
 * ExploreReport report = Explorer.start(settings, ExploreSettings.builder().strategy(Strategy.POS).maxPaths(500).build(),
 *         Explorer.Options.defaults().withScript(Path.of("scripts/paxos.py"))).run();
 * }</pre>
 */
public final class Explorer {
    /** How long a partition chosen at a partition point lasts, in virtual milliseconds. */
    public static final long ISOLATION_MILLIS = 1000;

    private Explorer() {
    }

    /**
     * What an exploration is given besides its settings.
     *
     * @param script            the predicate script, if any (without one, paths are only run: for speed)
     * @param classLoader       loads node, message and table classes
     * @param predicateTimeout  the longest one step's evaluation may take
     * @param scriptOutput      where the script's {@code print} goes
     * @param stop              set to stop the exploration cleanly (Ctrl-C); what was found so far is reported
     * @param start             the recorded state every path starts from, if not the cluster's boot
     */
    public record Options(Optional<Path> script, ClassLoader classLoader, Duration predicateTimeout,
                          OutputStream scriptOutput, AtomicBoolean stop, Optional<TraceStart> start) {
        public Options {
            Objects.requireNonNull(script, "script");
            Objects.requireNonNull(classLoader, "classLoader");
            Objects.requireNonNull(predicateTimeout, "predicateTimeout");
            Objects.requireNonNull(scriptOutput, "scriptOutput");
            Objects.requireNonNull(stop, "stop");
            Objects.requireNonNull(start, "start");
        }

        /** No script, this class's loader, a 10 s predicate timeout, script output to standard error. */
        public static Options defaults() {
            return new Options(Optional.empty(), Explorer.class.getClassLoader(), Duration.ofSeconds(10), System.err,
                    new AtomicBoolean(), Optional.empty());
        }

        public Options withScript(Path value) {
            return new Options(Optional.of(value), classLoader, predicateTimeout, scriptOutput, stop, start);
        }

        public Options withClassLoader(ClassLoader value) {
            return new Options(script, value, predicateTimeout, scriptOutput, stop, start);
        }

        public Options withPredicateTimeout(Duration value) {
            return new Options(script, classLoader, value, scriptOutput, stop, start);
        }

        public Options withScriptOutput(OutputStream value) {
            return new Options(script, classLoader, predicateTimeout, value, stop, start);
        }

        /**
         * Explores from the state a recorded trace reached at a position (rebuilt by replay for every path) instead of
         * from the cluster's start; see {@link TraceStart}.
         */
        public Options withStart(TraceStart value) {
            return new Options(script, classLoader, predicateTimeout, scriptOutput, stop, Optional.of(value));
        }

        public Options withStop(AtomicBoolean value) {
            return new Options(script, classLoader, predicateTimeout, scriptOutput, value, start);
        }
    }

    /** Prepares an exploration; call {@code run()} on the result (its counters may be read meanwhile). */
    public static Exploration start(SimulationSettings settings, ExploreSettings explore, Options options) {
        return new ExplorationRun(settings, explore, options);
    }

    /**
     * Runs the liveness search (MaceMC's critical transition, {@link LivenessSearch}) for every {@code @eventually}
     * predicate of {@code report} with a suspected path, one after the other, and returns the report with each
     * result; without {@code explore.walks()} it returns the report as it is.
     */
    public static ExploreReport searchLiveness(ExploreReport report, SimulationSettings settings, ExploreSettings explore,
                                               Options options) {
        java.util.List<Liveness> out = new java.util.ArrayList<>();
        for (Liveness liveness : report.liveness()) {
            Optional<LivenessSearch> search = options.stop().get() ? Optional.empty()
                    : LivenessSearch.forSuspect(report, liveness, settings, explore, options);
            out.add(search.map(s -> liveness.withCritical(s.run())).orElse(liveness));
        }
        return report.withLiveness(out);
    }

    /**
     * Writes, for each finding of {@code report}, its schedule and the trace made by running it again into
     * {@code directory}, checks the trace with {@code script} when there is one, and returns the report with each
     * finding's evidence: the files, the position where the checker reports the predicate and that of the violating
     * step's entry in the trace's merged order, and the command that writes the trace again ({@code command} gets the
     * schedule file and the trace directory).
     */
    public static ExploreReport writeEvidence(ExploreReport report, SimulationSettings settings, Path directory,
                                              ClassLoader loader, Optional<Path> script,
                                              BiFunction<Path, Path, String> command) {
        return Evidence.write(report, settings, directory, loader, script, command, Optional.empty());
    }

    /** As {@link #writeEvidence(ExploreReport, SimulationSettings, Path, ClassLoader, Optional, BiFunction)}, for an
     * exploration that started from {@code start}: each trace holds the recorded prefix and then the violating path. */
    public static ExploreReport writeEvidence(ExploreReport report, SimulationSettings settings, Path directory,
                                              ClassLoader loader, Optional<Path> script,
                                              BiFunction<Path, Path, String> command, Optional<TraceStart> start) {
        return Evidence.write(report, settings, directory, loader, script, command, start);
    }
}
