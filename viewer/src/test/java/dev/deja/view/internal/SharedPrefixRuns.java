package dev.deja.view.internal;

import dev.deja.examples.randtree.RandTreeClient;
import dev.deja.examples.randtree.RandTreeNode;
import dev.deja.node.NodeId;
import dev.deja.runtime.Partition;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.nio.file.Path;
import java.util.Map;

/**
 * Two simulated RandTree runs that share a prefix: both answer their first {@code prefix} choices from one seed,
 * then each goes on from its own seed, as a walk from a prefix of a path does in the liveness search. With the
 * {@code no-recovery-timer} bug, seed 1 ends with two roots (its tree stays split after the partition heals).
 */
final class SharedPrefixRuns {
    private SharedPrefixRuns() {
    }

    /** RandTree, six nodes, the bug switched on, settings of the example's {@code no-recovery-timer} command. */
    static SimulationSettings randTree(long seed) {
        return randTree(seed, 5_000);
    }

    /** The same, ending after {@code virtualMillis} of virtual time (tests keep runs short). */
    static SimulationSettings randTree(long seed, long virtualMillis) {
        SimulationSettings.Builder settings = SimulationSettings.builder().seed(seed).dropProbability(0.05)
                .delayMillis(1, 10).crashRate(0.006).restartDelayMillis(300)
                .partition(Partition.parse("n1|n2,n3,n4,n5,n6@800ms..3500ms")).maxVirtualMillis(virtualMillis)
                .stop(SimulationSettings.Stop.AT_LIMIT)
                .driver(new NodeId("client"), RandTreeClient.class.getName());
        for (int i = 1; i <= 6; i++) {
            settings.node(new NodeId("n" + i), RandTreeNode.class.getName(), Map.of("bug", "no-recovery-timer"));
        }
        return settings.build();
    }

    /**
     * Writes the run whose first {@code prefix} choices come from {@code seed} and the rest from {@code then}
     * ({@code then == seed}: the plain seeded run).
     */
    static int run(Path trace, long seed, long prefix, long then) {
        return run(trace, seed, prefix, then, 5_000);
    }

    /** As {@link #run(Path, long, long, long)}, ending after {@code virtualMillis}. */
    static int run(Path trace, long seed, long prefix, long then, long virtualMillis) {
        SimulationSettings settings = randTree(seed, virtualMillis);
        ChoiceSource source = then == seed ? ChoiceSource.seeded(seed) : switching(seed, prefix, then);
        int[] roots = {0};
        Simulator.run(settings, trace, Simulator.Options.of(settings).withChoices(source)
                .withClassLoader(SharedPrefixRuns.class.getClassLoader()).withObserver((step, view) -> {
                    roots[0] = (int) view.liveNodes().values().stream()
                            .filter(n -> n instanceof RandTreeNode tree && tree.isRoot()).count();
                    return true;
                }));
        return roots[0];
    }

    /** Answers the first {@code prefix} choices from {@code seed}, the rest from {@code then}. */
    static ChoiceSource switching(long seed, long prefix, long then) {
        ChoiceSource first = ChoiceSource.seeded(seed);
        ChoiceSource rest = ChoiceSource.seeded(then);
        return new ChoiceSource() {
            private long asked;

            private ChoiceSource next() {
                return asked++ < prefix ? first : rest;
            }

            @Override
            public int pick(ChoicePoint point, int options) {
                return next().pick(point, options);
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                return next().chance(point, probability);
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                return next().between(point, min, max);
            }

            @Override
            public long bits(ChoicePoint point) {
                return next().bits(point);
            }
        };
    }

    /**
     * Writes the two runs of the docs' picture and prints how many roots each ends with: {@code args} = directory,
     * prefix, other seeds (each is tried until one ends with one root).
     */
    public static void main(String[] args) throws java.io.IOException {
        Path directory = Path.of(args[0]);
        long prefix = Long.parseLong(args[1]);
        System.out.println("violating: " + run(directory.resolve("violating"), 1, prefix, 1) + " root(s) at the end");
        for (int i = 2; i < args.length; i++) {
            long then = Long.parseLong(args[i]);
            Path live = directory.resolve("live-" + then);
            int roots = run(live, 1, prefix, then);
            System.out.println("prefix " + prefix + ", then seed " + then + ": " + roots + " root(s) at the end");
        }
    }
}
