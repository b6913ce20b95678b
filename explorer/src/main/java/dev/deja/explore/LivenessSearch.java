package dev.deja.explore;

import dev.deja.explore.internal.CriticalSearch;
import dev.deja.explore.internal.LivenessEvidence;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * MaceMC's search for the critical transition of a suspected liveness violation (section 3.2, algorithm 3): from
 * prefixes of the violating run, K random walks each (up to dmax steps in all) tell a transient prefix (some walk
 * reaches a state where the {@code @eventually} predicate holds) from a dead one (none does). The prefix is doubled
 * from the first non-live step until a dead one is found, then bisected down to the last step that was still
 * recoverable.
 *
 * <pre>{@code
 * CriticalTransition found = LivenessSearch.prepare(WalkOrigin.ofSchedule(settings, finding.schedule(), loader),
 *         new LivenessSearch.Target("one_root", 120, 119), explore, 20, options).run();
 * }</pre>
 *
 * <p>Walks reuse the explorer's in-memory runs and one Python context per worker ({@code explore.workers()}); walk
 * {@code i} from prefix {@code p} draws its answers from the seed, {@code p} and {@code i} alone, and a probe reports
 * the lowest-numbered live walk, so the result does not depend on the number of workers. {@link #counters()} may be
 * read from another thread while {@link #run()} runs.
 */
public final class LivenessSearch {
    private final CriticalSearch search;

    /**
     * The suspected violation to search.
     *
     * @param predicate        the {@code @eventually} predicate (of the script in the explorer's options)
     * @param nonLiveFrom      the first prefix, in steps, from which the violating run never has the predicate hold
     *                         again (MaceMC's d_init)
     * @param knownRecoverable the longest prefix known to be live or recoverable (e.g. {@code nonLiveFrom - 1} when
     *                         the predicate held right before), or -1 if none is known
     */
    public record Target(String predicate, long nonLiveFrom, long knownRecoverable) {
        public Target {
            Objects.requireNonNull(predicate, "predicate");
            if (nonLiveFrom < 0 || knownRecoverable >= nonLiveFrom) {
                throw new IllegalArgumentException("need 0 <= nonLiveFrom and knownRecoverable < nonLiveFrom, were "
                        + nonLiveFrom + " and " + knownRecoverable);
            }
        }
    }

    /** Live figures for a progress display. */
    public record Counters(long probes, long walks, long steps, Duration elapsed) {
    }

    private LivenessSearch(CriticalSearch search) {
        this.search = search;
    }

    /**
     * Prepares a search: walks as {@code explore} draws them (seed, weights, fault budgets), {@code explore.maxDepth()}
     * as dmax, {@code explore.workers()} threads, {@code walks} walks (K) per prefix; the script, class loader and stop
     * flag come from {@code options}, which must name a script.
     */
    public static LivenessSearch prepare(WalkOrigin origin, Target target, ExploreSettings explore, int walks,
                                         Explorer.Options options) {
        if (walks < 1) {
            throw new IllegalArgumentException("--walks must be at least 1, was " + walks);
        }
        if (options.script().isEmpty()) {
            throw new IllegalArgumentException("the liveness search needs a predicate script");
        }
        return new LivenessSearch(new CriticalSearch(origin, target, explore, walks, options));
    }

    /**
     * The search for the critical transition of {@code liveness}'s shortest suspected path in {@code report} (the
     * path's schedule is its {@code EVENTUALLY_OPEN_AT_END} finding's), with {@code explore.walks()} walks per prefix;
     * empty when there is no suspected path or no walks are asked for.
     */
    public static java.util.Optional<LivenessSearch> forSuspect(ExploreReport report, Liveness liveness,
                                                                SimulationSettings settings, ExploreSettings explore,
                                                                Explorer.Options options) {
        if (explore.walks() < 1 || liveness.suspected() == 0 || liveness.nonLiveFrom() < 1) {
            return java.util.Optional.empty();
        }
        return report.findings().stream()
                .filter(f -> f.kind() == Finding.Kind.EVENTUALLY_OPEN_AT_END && f.predicate().equals(liveness.predicate()))
                .findFirst()
                .map(f -> prepare(WalkOrigin.ofSchedule(settings, f.schedule(), options.classLoader(), options.start()),
                        new Target(liveness.predicate(), liveness.nonLiveFrom(),
                                // false from the first step on: the state before it was never evaluated, not live
                                liveness.nonLiveFrom() > 1 ? liveness.nonLiveFrom() - 1 : -1), explore,
                        explore.walks(), options));
    }

    /** Runs the search; blocks until it ends. */
    public CriticalTransition run() {
        return search.run();
    }

    /** The figures so far. */
    public Counters counters() {
        return search.counters();
    }

    /**
     * The command that writes a run's trace again from its schedule file, e.g. {@code deja simulate ... --schedule FILE
     * --out TRACE}, for a run that starts from the recorded state {@code start} (with {@code --from TRACE --at
     * POSITION}), or from the cluster's boot when it is empty.
     */
    @FunctionalInterface
    public interface Reproduce {
        String command(Path schedule, Path trace, java.util.Optional<dev.deja.sim.TraceStart> start);
    }

    /**
     * Writes the violating run and the nearest live run as ordinary traces, with their schedules, side by side in
     * {@code directory} as {@code PREDICATE-violating.trace} and {@code PREDICATE-live.trace}, each by running its
     * schedule again (the same answers give the run the search saw, byte for byte); {@code command} gives the command
     * that writes a trace again from its schedule file, {@code compare} the one that shows both traces side by side.
     */
    public static CriticalTransition writeEvidence(CriticalTransition found, SimulationSettings settings, Path directory,
                                                   ClassLoader loader, BiFunction<Path, Path, String> command,
                                                   BiFunction<Path, Path, String> compare) {
        return LivenessEvidence.write(found, settings, directory, loader, (schedule, trace, start) ->
                command.apply(schedule, trace), compare, java.util.Optional.empty());
    }

    /**
     * As the other {@code writeEvidence}, for runs that start from the recorded state {@code start} rebuilds; a nearest
     * live run that starts from an earlier state of the recording (its critical transition lies in the replayed part)
     * is written from there, and {@code command} is told which state each run starts from.
     */
    public static CriticalTransition writeEvidence(CriticalTransition found, SimulationSettings settings, Path directory,
                                                   ClassLoader loader, Reproduce command,
                                                   BiFunction<Path, Path, String> compare,
                                                   java.util.Optional<dev.deja.sim.TraceStart> start) {
        return LivenessEvidence.write(found, settings, directory, loader, command, compare, start);
    }

    /**
     * For a critical transition searched inside the recorded run {@code recorded} ({@link RecordedLiveness}): the
     * recording is the violating run, and the nearest live run, a walk from the recording's state after
     * {@code found.lastRecoverable()} handler calls, is written into {@code directory} as {@code PREDICATE-live.trace}
     * with its schedule (answering the choices after that state); {@code command} writes it again, {@code compare}
     * shows the recording and it side by side. Without a live walk nothing is written.
     */
    public static CriticalTransition writeNearestLive(CriticalTransition found, SimulationSettings settings, Path recorded,
                                                      Path directory, ClassLoader loader, Reproduce command,
                                                      BiFunction<Path, Path, String> compare) {
        return LivenessEvidence.writeLive(found, settings, recorded, directory, loader, command, compare);
    }
}
