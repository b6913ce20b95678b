package dev.deja.explore;

/**
 * The most faults of each kind one path may have (MODIST 2.4: real bugs need few faults, at the right moments).
 *
 * @param maxDrops       messages lost
 * @param maxDuplicates  messages delivered twice
 * @param maxCrashes     node crashes (each followed by a restart)
 * @param maxPartitions  nodes cut off from all others for a while
 */
public record FaultBudget(int maxDrops, int maxDuplicates, int maxCrashes, int maxPartitions) {
    /** No faults at all. */
    public static final FaultBudget NONE = new FaultBudget(0, 0, 0, 0);

    public FaultBudget {
        if (maxDrops < 0 || maxDuplicates < 0 || maxCrashes < 0 || maxPartitions < 0) {
            throw new IllegalArgumentException("fault budgets must not be negative");
        }
    }
}
