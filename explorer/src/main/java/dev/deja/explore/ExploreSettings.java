package dev.deja.explore;

import dev.deja.sim.ChoicePoint;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How to explore, besides the cluster (a {@code SimulationSettings}) and the script.
 *
 * @param strategy      how paths are chosen
 * @param seed          the seed of every random answer: the same settings and seed explore the same paths
 * @param maxPaths      stop after this many paths ({@link Long#MAX_VALUE}: no limit)
 * @param budget        stop after this much wall-clock time ({@code null}: no limit)
 * @param maxDepth      the most steps a path takes (MaceMC's dmax for the random completion)
 * @param searchDepth   for {@code dfs}: the first depth bound of iterative deepening, in branching choice points
 * @param workers       threads exploring at once (randomized strategies split paths by number)
 * @param faults        per-path fault budgets
 * @param faultRate     chance, at each crash or partition point, that a randomized strategy takes it (within budget)
 * @param weights       for {@code random}: relative weight of each kind of enabled event (MaceMC's weighting)
 * @param pctDepth      for {@code pct}: the bug depth d (d - 1 priority change points per path)
 * @param windowMillis  the timer error window: events due within it of the earliest are all enabled (MODIST 3.4)
 * @param hashStates    whether randomized strategies hash states too (dfs and dpor always do)
 * @param hashExcludes  fields left out of the state hash, as {@code Class.field} (simple or full class name)
 * @param stopAtFirst   whether to stop at the first safety violation
 * @param walks         K, random walks per prefix in the liveness search of a path that ends with an
 *                      {@code @eventually} predicate false (MaceMC's critical transition); 0: no such search
 */
public record ExploreSettings(Strategy strategy, long seed, long maxPaths, Duration budget, int maxDepth, int searchDepth,
                              int workers, FaultBudget faults, double faultRate, Map<ChoicePoint.EventKind, Double> weights,
                              int pctDepth, long windowMillis, boolean hashStates, Set<String> hashExcludes,
                              boolean stopAtFirst, int walks) {
    public ExploreSettings {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(faults, "faults");
        weights = Map.copyOf(weights);
        hashExcludes = Set.copyOf(hashExcludes);
        if (walks < 0) {
            throw new IllegalArgumentException("--walks must not be negative, was " + walks);
        }
        if (maxPaths < 1 || maxDepth < 1 || searchDepth < 1 || workers < 1 || pctDepth < 1 || windowMillis < 0) {
            throw new IllegalArgumentException("--paths, --max-depth, --search-depth, --workers and --pct-depth must be "
                    + "positive and --window not negative");
        }
        if (!(faultRate >= 0 && faultRate <= 1)) {
            throw new IllegalArgumentException("--fault-rate is a probability between 0 and 1, was " + faultRate);
        }
        for (Map.Entry<ChoicePoint.EventKind, Double> weight : weights.entrySet()) {
            if (!(weight.getValue() >= 0)) {
                throw new IllegalArgumentException("the weight of " + weight.getKey() + " must not be negative");
            }
        }
    }

    /** The weight of {@code kind} (1 unless set). */
    public double weight(ChoicePoint.EventKind kind) {
        return weights.getOrDefault(kind, 1.0);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link ExploreSettings}; defaults: random, seed 1, 1000 paths, depth 10,000, one worker, no faults. */
    public static final class Builder {
        private Strategy strategy = Strategy.RANDOM;
        private long seed = 1;
        private long maxPaths = 1000;
        private Duration budget;
        private int maxDepth = 10_000;
        private int searchDepth = 1;
        private int workers = 1;
        private FaultBudget faults = FaultBudget.NONE;
        private double faultRate = 0.01;
        private final Map<ChoicePoint.EventKind, Double> weights = new EnumMap<>(ChoicePoint.EventKind.class);
        private int pctDepth = 3;
        private long windowMillis;
        private boolean hashStates;
        private final Set<String> hashExcludes = new LinkedHashSet<>();
        private boolean stopAtFirst;
        private int walks;

        private Builder() {
        }

        public Builder strategy(Strategy value) { strategy = value; return this; }

        public Builder seed(long value) { seed = value; return this; }

        public Builder maxPaths(long value) { maxPaths = value; return this; }

        public Builder budget(Duration value) { budget = value; return this; }

        public Builder maxDepth(int value) { maxDepth = value; return this; }

        public Builder searchDepth(int value) { searchDepth = value; return this; }

        public Builder workers(int value) { workers = value; return this; }

        public Builder faults(FaultBudget value) { faults = value; return this; }

        public Builder faultRate(double value) { faultRate = value; return this; }

        public Builder weight(ChoicePoint.EventKind kind, double value) { weights.put(kind, value); return this; }

        public Builder pctDepth(int value) { pctDepth = value; return this; }

        public Builder windowMillis(long value) { windowMillis = value; return this; }

        public Builder hashStates(boolean value) { hashStates = value; return this; }

        public Builder hashExclude(String field) { hashExcludes.add(field); return this; }

        public Builder stopAtFirst(boolean value) { stopAtFirst = value; return this; }

        public Builder walks(int value) { walks = value; return this; }

        public ExploreSettings build() {
            return new ExploreSettings(strategy, seed, maxPaths, budget, maxDepth, searchDepth, workers, faults, faultRate,
                    weights, pctDepth, windowMillis, hashStates, hashExcludes, stopAtFirst, walks);
        }
    }
}
