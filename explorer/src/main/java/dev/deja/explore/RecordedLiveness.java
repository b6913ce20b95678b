package dev.deja.explore;

import dev.deja.explore.internal.RecordedSpans;
import dev.deja.explore.internal.TraceOrigin;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.TraceStart;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Tells, for an {@code @eventually} predicate still false at the end of a recorded run (an open span of the checker's
 * report), whether the recorded state at the end is dead or transient (MaceMC section 3.2, from a recorded deployment
 * rather than a simulated path): K random walks of the simulated continuation start from the state replay rebuilds at the
 * trace's end; if one reaches a state where the predicate holds within dmax steps the state is transient, if none does
 * it is (likely) dead, and the critical transition is then searched inside the recorded run, between the span's opening
 * and the end, with {@link LivenessSearch} over the recording's prefixes.
 *
 * <p>Steps are counted from the recording's start: prefix {@code p} is the state after its first {@code p} handler
 * calls, and a walk ends once the run (replayed prefix included) has {@code explore.maxDepth()} steps.
 */
public final class RecordedLiveness {
    private RecordedLiveness() {
    }

    /** What the walks found for the state at the end of the recording. */
    public enum Verdict {
        /** Some walk reached a state where the predicate holds: the recorded run may just not have gone on long enough. */
        TRANSIENT,
        /** No walk did: likely a dead state (raise K or dmax to be surer). */
        DEAD;

        /** {@code transient} or {@code dead}, as the report prints it. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The verdict on one open span, with the figures behind it.
     *
     * @param predicate      the {@code @eventually} predicate
     * @param openedAt       the merged position of the entry whose handler call turned it false for the last time
     * @param openedAtStep   the same as a prefix: the handler calls up to and including that one
     * @param endStep        the recording's handler calls: the prefix the walks started from
     * @param verdict        dead or transient
     * @param walks          walks run from the end state (K)
     * @param live           walks that reached a state where the predicate holds
     * @param maxDepth       dmax, counted from the recording's start
     * @param liveDepths     for each live walk, the steps it took after the end of the recording, ascending
     * @param walkSteps      simulated steps run by all the walks (the replayed prefixes not counted)
     * @param critical       for a dead state, the critical transition inside the recorded run
     * @param cost           what the walks from the end cost (not those of the critical transition's search)
     */
    public record Classification(String predicate, long openedAt, long openedAtStep, long endStep, Verdict verdict,
                                 int walks, int live, int maxDepth, List<Long> liveDepths, long walkSteps,
                                 Optional<CriticalTransition> critical, Cost cost) {
        public Classification {
            Objects.requireNonNull(predicate, "predicate");
            liveDepths = List.copyOf(liveDepths);
            Objects.requireNonNull(critical, "critical");
            Objects.requireNonNull(cost, "cost");
        }

        /** A classification whose cost was not measured. */
        public Classification(String predicate, long openedAt, long openedAtStep, long endStep, Verdict verdict,
                              int walks, int live, int maxDepth, List<Long> liveDepths, long walkSteps,
                              Optional<CriticalTransition> critical) {
            this(predicate, openedAt, openedAtStep, endStep, verdict, walks, live, maxDepth, liveDepths, walkSteps,
                    critical, Cost.UNMEASURED);
        }

        /** The same classification with {@code value} as its critical transition (e.g. once its evidence is written). */
        public Classification withCritical(CriticalTransition value) {
            return new Classification(predicate, openedAt, openedAtStep, endStep, verdict, walks, live, maxDepth,
                    liveDepths, walkSteps, Optional.of(value), cost);
        }

        /** The share of walks that reached a live state. */
        public double liveShare() {
            return walks == 0 ? 0 : (double) live / walks;
        }
    }

    /**
     * The CPU time of the walking thread the walks from the end took, split at the hand-over: every walk first rebuilds
     * the recorded state by replaying the recording (no snapshot), evaluating the predicates over the replayed handler
     * calls, then walks on under the simulator.
     *
     * @param prefixCpuNanos the rebuilding, over all walks
     * @param walkCpuNanos   the walking on, over all walks
     */
    public record Cost(long prefixCpuNanos, long walkCpuNanos) {
        /** Not measured. */
        public static final Cost UNMEASURED = new Cost(0, 0);
    }

    /**
     * Classifies the span of {@code predicate} opened at merged position {@code openedAt} and still open at the end of
     * {@code recording}: {@code walks} walks drawn as {@code explore} draws random walks (seed, weights, fault budgets,
     * {@code maxDepth} as dmax), under {@code settings}' network; the script and class loader come from {@code options}.
     * With {@code searchCritical}, a dead state's critical transition is searched too (K walks per probed prefix).
     */
    public static Classification classify(TraceStart.Recording recording, String predicate, long openedAt,
                                          SimulationSettings settings, ExploreSettings explore, int walks,
                                          boolean searchCritical, Explorer.Options options) {
        if (walks < 1) {
            throw new IllegalArgumentException("--walks must be at least 1, was " + walks);
        }
        if (options.script().isEmpty()) {
            throw new IllegalArgumentException("classifying a span needs its predicate script");
        }
        TraceOrigin origin = new TraceOrigin(settings, recording);
        long openedAtStep = recording.handlerCallsThrough(openedAt);
        RecordedSpans.EndWalks end = RecordedSpans.walkFromEnd(origin, predicate, explore, walks, options);
        Verdict verdict = end.live() > 0 ? Verdict.TRANSIENT : Verdict.DEAD;
        Optional<CriticalTransition> critical = Optional.empty();
        if (verdict == Verdict.DEAD && searchCritical && openedAtStep >= 1) {
            long knownRecoverable = openedAtStep - 1; // the predicate held right before the span opened
            critical = Optional.of(LivenessSearch.prepare(origin, new LivenessSearch.Target(predicate, openedAtStep,
                    knownRecoverable), explore, walks, options).run());
        }
        return new Classification(predicate, openedAt, openedAtStep, origin.steps(), verdict, walks, end.live(),
                explore.maxDepth(), end.liveDepths(), end.steps(), critical,
                new Cost(end.prefixCpuNanos(), end.walkCpuNanos()));
    }
}
