package dev.deja.explore;

import dev.deja.sim.Schedule;
import dev.deja.sim.TraceStart;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a run that never became live again went wrong (MaceMC, section 3.2, algorithm 3): the step after which no
 * random walk reached a live state, with the walks behind that verdict and the nearest live run.
 *
 * <p>Prefixes are counted in steps: prefix {@code p} is the state after the path's first {@code p} steps. The critical
 * step is step number {@link #step} (counting from 1): the state before it (prefix {@code step - 1}) is transient,
 * some walk from it reached a live state; the state after it (prefix {@code step}) is dead, none of the walks did.
 *
 * @param predicate      the {@code @eventually} predicate
 * @param verdict        C1 (dead after the step) or C2 (inconclusive: raise dmax, or the run never recovers from
 *                       its first non-live state)
 * @param step           the critical step's number, counting from 1 (for C2, the prefix the search stopped at)
 * @param node           the node whose step it was (empty when there is no such step, e.g. C2 at prefix 0)
 * @param event          that step's event in words, e.g. {@code receive Join from n1} or {@code timer n2 #4 Recovery}
 * @param message        the message type the step received, or empty for a timer, start or restart
 * @param lastRecoverable the longest prefix known to reach a live state (MaceMC's d_prev), or -1 if none is known
 * @param walks          K, the random walks run from each prefix probed (a probe stops at its first live walk)
 * @param maxDepth       dmax: every walk ran until a live state or until the run had this many steps
 * @param nonLiveFrom    the first step of the violating run from which the predicate was never true again (d_init)
 * @param probes         every prefix probed, in the order probed
 * @param violating      the violating run's schedule, when the origin is a simulated run
 * @param nearestLive    the walk that reached a live state from the longest recoverable prefix: the live run that
 *                       shares the longest prefix with the violating one
 * @param evidence       the traces written for both runs, once {@code LivenessSearch.writeEvidence} ran
 */
public record CriticalTransition(String predicate, Verdict verdict, long step, String node, String event, String message,
                                 long lastRecoverable, int walks, int maxDepth, long nonLiveFrom, List<Probe> probes,
                                 Optional<Schedule> violating, Optional<LiveWalk> nearestLive,
                                 Optional<Evidence> evidence) {
    /** MaceMC's two conditions for a suspected liveness violation. */
    public enum Verdict {
        /** C1: the run is in a dead state after the critical step; no walk from there reached a live state. */
        C1_DEAD,
        /** C2: inconclusive; no dead prefix was found early enough (raise dmax), or none of the run recovers. */
        C2_INCONCLUSIVE;

        /** {@code C1} or {@code C2}. */
        public String label() {
            return this == C1_DEAD ? "C1" : "C2";
        }
    }

    /**
     * The walks run from one prefix.
     *
     * @param prefix     the prefix's length in steps
     * @param walks      walks run (at most K; the probe stops at its first live walk)
     * @param live       walks that reached a live state (0 or 1, as a probe stops at the first)
     * @param liveAtStep the step (counting from 1, over the whole run) at which the live walk was live, or -1
     * @param steps      steps run by all these walks together, prefix replays included
     */
    public record Probe(long prefix, int walks, int live, long liveAtStep, long steps) {
        /** Whether some walk from this prefix reached a live state. */
        public boolean recovers() {
            return live > 0;
        }
    }

    /**
     * A walk that reached a live state.
     *
     * @param prefix     the prefix of the violating run it started from, in steps
     * @param liveAtStep the step (counting from 1) after which the predicate held
     * @param schedule   its schedule: it ends at that step. From a simulated run's prefix, the prefix's answers and the
     *                   walk's; from a prefix inside a recorded run, the walk's alone, answering what follows {@code start}
     * @param start      the recorded state the walk's run starts from, rebuilt by replay ({@code deja simulate --from
     *                   TRACE --at POSITION}), or empty when it starts at the cluster's boot
     */
    public record LiveWalk(long prefix, long liveAtStep, Optional<Schedule> schedule, Optional<TraceStart> start) {
        public LiveWalk {
            Objects.requireNonNull(schedule, "schedule");
            Objects.requireNonNull(start, "start");
        }
    }

    /**
     * The files written for a critical transition.
     *
     * @param violatingTrace     the violating run's trace (a recorded run's own trace directory)
     * @param violatingSchedule  its schedule, empty for a recorded run
     * @param violatingCommand   the command that writes that trace again, empty for a recorded run
     * @param liveTrace          the nearest live run's trace, if there is a live run
     * @param liveSchedule       its schedule
     * @param liveCommand        the command that writes it again
     * @param compareCommand     the command that shows both runs side by side
     */
    public record Evidence(String violatingTrace, Optional<String> violatingSchedule, Optional<String> violatingCommand,
                           Optional<String> liveTrace, Optional<String> liveSchedule, Optional<String> liveCommand,
                           Optional<String> compareCommand) {
    }

    public CriticalTransition {
        Objects.requireNonNull(predicate, "predicate");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(message, "message");
        probes = List.copyOf(probes);
        Objects.requireNonNull(violating, "violating");
        Objects.requireNonNull(nearestLive, "nearestLive");
        Objects.requireNonNull(evidence, "evidence");
    }

    /** Walks run over all probes. */
    public long totalWalks() {
        return probes.stream().mapToLong(Probe::walks).sum();
    }

    /** Steps run over all probes. */
    public long totalSteps() {
        return probes.stream().mapToLong(Probe::steps).sum();
    }

    public CriticalTransition withEvidence(Evidence value) {
        return new CriticalTransition(predicate, verdict, step, node, event, message, lastRecoverable, walks, maxDepth,
                nonLiveFrom, probes, violating, nearestLive, Optional.of(value));
    }
}
