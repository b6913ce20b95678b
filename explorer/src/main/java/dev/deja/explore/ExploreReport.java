package dev.deja.explore;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What an exploration did and found.
 *
 * @param strategy        the strategy
 * @param seed            the seed
 * @param workers         threads that explored
 * @param paths           paths run
 * @param steps           steps run over all paths
 * @param statesVisited   states hashed (after every step), or 0 when states were not hashed
 * @param distinctStates  distinct state hashes among them
 * @param deepestPath     the most steps one path took
 * @param elapsed         wall-clock time
 * @param ending          why the exploration stopped
 * @param search          for dfs and dpor, a line on the search (bounds, pruning); otherwise empty
 * @param predicates      the script's predicates, in declaration order (empty without a script)
 * @param findings        per predicate and kind, the shortest path found; safety violations first
 * @param cpu             CPU time the exploring threads used (on a busy machine, steps per CPU second say more than
 *                        steps per second)
 * @param liveness        per {@code @eventually} predicate, how soon paths became live and the suspected violations
 */
public record ExploreReport(Strategy strategy, long seed, int workers, long paths, long steps, long statesVisited,
                            long distinctStates, long deepestPath, Duration elapsed, Ending ending, String search,
                            List<String> predicates, List<Finding> findings, Duration cpu,
                            List<Liveness> liveness) {
    /** Why an exploration stopped. */
    public enum Ending {
        /** Every path of the search tree was explored. */
        EXHAUSTED,
        /** The path limit was reached. */
        PATH_LIMIT,
        /** The time budget ran out. */
        BUDGET,
        /** Stopped at the first safety violation, as asked. */
        FIRST_VIOLATION,
        /** Interrupted (Ctrl-C). */
        INTERRUPTED
    }

    public ExploreReport {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(ending, "ending");
        predicates = List.copyOf(predicates);
        findings = List.copyOf(findings);
        liveness = List.copyOf(liveness);
    }

    /** A report without liveness figures. */
    public ExploreReport(Strategy strategy, long seed, int workers, long paths, long steps, long statesVisited,
                         long distinctStates, long deepestPath, Duration elapsed, Ending ending, String search,
                         List<String> predicates, List<Finding> findings, Duration cpu) {
        this(strategy, seed, workers, paths, steps, statesVisited, distinctStates, deepestPath, elapsed, ending, search,
                predicates, findings, cpu, List.of());
    }

    /** Whether any safety predicate was violated or any predicate failed to evaluate. */
    public boolean violated() {
        return findings.stream().anyMatch(f -> f.kind() != Finding.Kind.EVENTUALLY_OPEN_AT_END);
    }

    /** Steps per wall-clock second. */
    public double stepsPerSecond() {
        return steps / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }

    /** Steps per CPU second of the exploring threads. */
    public double stepsPerCpuSecond() {
        return steps / Math.max(1e-9, cpu.toNanos() / 1e9);
    }

    /** Paths per wall-clock second. */
    public double pathsPerSecond() {
        return paths / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }

    public ExploreReport withFindings(List<Finding> value) {
        return new ExploreReport(strategy, seed, workers, paths, steps, statesVisited, distinctStates, deepestPath, elapsed,
                ending, search, predicates, value, cpu, liveness);
    }

    public ExploreReport withLiveness(List<Liveness> value) {
        return new ExploreReport(strategy, seed, workers, paths, steps, statesVisited, distinctStates, deepestPath, elapsed,
                ending, search, predicates, findings, cpu, value);
    }

    /** Whether some liveness search found a dead state (verdict C1). */
    public boolean deadStateFound() {
        return liveness.stream().anyMatch(l -> l.critical().map(c -> c.verdict() == CriticalTransition.Verdict.C1_DEAD)
                .orElse(false));
    }
}
