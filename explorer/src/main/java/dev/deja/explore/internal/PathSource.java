package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.explore.FaultBudget;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.SplittableRandom;

/**
 * The choice source of one path: a strategy decides scheduling ({@link #schedule}) and whether a fault within
 * budget happens ({@link #fault}); this class keeps the per-path fault budgets and answers the rest.
 *
 * <p>Confined to the path's thread.
 */
abstract class PathSource implements ChoiceSource {
    final SimulationSettings settings;
    final ExploreSettings explore;
    final FaultBudget budget;
    /** Random draws inside handlers and random answers of this path. */
    final SplittableRandom random;
    int drops;
    int duplicates;
    int crashes;
    int isolations;

    PathSource(SimulationSettings settings, ExploreSettings explore, long seed) {
        this.settings = settings;
        this.explore = explore;
        this.budget = explore.faults();
        this.random = new SplittableRandom(seed);
    }

    /** Which of the enabled events runs next. */
    abstract int schedule(ChoicePoint.NextEvent point);

    /**
     * Whether a fault that the budget still allows happens; {@code probability} is the simulator's own for that
     * kind of fault (0 for crash and partition points).
     */
    abstract boolean fault(ChoicePoint point, double probability);

    /** Whether message delays and clock skews are drawn at random (else the shortest delay and no skew). */
    abstract boolean randomTiming();

    /** After each step; false ends the path there. */
    boolean afterStep(SimulatedStep step, long stateHash) {
        return true;
    }

    /** Which node crashes when the settings' crash rate says one does; random by default. */
    int victim(int candidates) {
        return random.nextInt(candidates);
    }

    @Override
    public final int pick(ChoicePoint point, int options) {
        if (options == 1) {
            return 0;
        }
        return switch (point) {
            case ChoicePoint.NextEvent next -> schedule(next);
            case ChoicePoint.CrashVictim victim -> victim(options);
            default -> random.nextInt(options);
        };
    }

    @Override
    public final boolean chance(ChoicePoint point, double probability) {
        switch (point) {
            case ChoicePoint.Drop drop -> {
                if (drops < budget.maxDrops() && fault(point, probability)) {
                    drops++;
                    return true;
                }
                return false;
            }
            case ChoicePoint.Duplicate duplicate -> {
                if (duplicates < budget.maxDuplicates() && fault(point, probability)) {
                    duplicates++;
                    return true;
                }
                return false;
            }
            case ChoicePoint.CrashAfter crash -> {
                if (crashes < budget.maxCrashes() && fault(point, probability)) {
                    crashes++;
                    return true;
                }
                return false;
            }
            case ChoicePoint.Crash crash -> {
                // The settings' crash rate: for randomized strategies only, within the crash budget.
                if (randomTiming() && crashes < budget.maxCrashes() && probability > 0 && random.nextDouble() < probability) {
                    crashes++;
                    return true;
                }
                return false;
            }
            case ChoicePoint.Isolate isolate -> {
                if (isolations < budget.maxPartitions() && fault(point, probability)) {
                    isolations++;
                    return true;
                }
                return false;
            }
            default -> {
                return probability > 0 && (probability >= 1 || random.nextDouble() < probability);
            }
        }
    }

    @Override
    public final long between(ChoicePoint point, long min, long max) {
        if (min == max) {
            return min;
        }
        if (randomTiming()) {
            return random.nextLong(min, max + 1);
        }
        return point instanceof ChoicePoint.ClockSkew ? Math.max(min, Math.min(max, 0)) : min;
    }

    @Override
    public final long bits(ChoicePoint point) {
        return random.nextLong();
    }

    /** A fault decision of a randomized strategy: the simulator's probability, or the explorer's fault rate. */
    final boolean randomFault(double probability) {
        double p = probability > 0 ? probability : explore.faultRate();
        return p > 0 && random.nextDouble() < p;
    }
}
