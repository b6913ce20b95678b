package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** The per-path sources of the randomized strategies: random walks, PCT and POS. Each path is independent. */
final class RandomizedSources {
    private RandomizedSources() {
    }

    /** A random walk, weighted by kind of event (MaceMC 3.1): each enabled event with probability ∝ its weight. */
    static final class RandomWalk extends PathSource {
        RandomWalk(SimulationSettings settings, ExploreSettings explore, long seed) {
            super(settings, explore, seed);
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            List<ChoicePoint.Enabled> events = point.events();
            if (explore.weights().isEmpty()) {
                return random.nextInt(events.size());
            }
            double total = 0;
            for (ChoicePoint.Enabled event : events) {
                total += explore.weight(event.kind());
            }
            if (total <= 0) {
                return random.nextInt(events.size());
            }
            double target = random.nextDouble() * total;
            for (int i = 0; i < events.size(); i++) {
                target -= explore.weight(events.get(i).kind());
                if (target < 0) {
                    return i;
                }
            }
            return events.size() - 1;
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            return randomFault(probability);
        }

        @Override
        boolean randomTiming() {
            return true;
        }
    }

    /**
     * Probabilistic concurrency testing (Burckhardt et al.): the nodes get distinct random priorities d..d+n-1; at
     * each step an enabled event of the highest-priority node runs; at the i-th of d-1 change points, drawn
     * uniformly among the first k steps, the running node's priority drops to i.
     */
    static final class Pct extends PathSource {
        private final Map<NodeId, Integer> priorities = new HashMap<>();
        private final long[] changePoints;
        private int nextChange;

        Pct(SimulationSettings settings, ExploreSettings explore, long seed, long expectedSteps) {
            super(settings, explore, seed);
            int depth = explore.pctDepth();
            List<NodeId> ids = new ArrayList<>(settings.nodes().keySet());
            settings.driver().ifPresent(d -> ids.add(d.id()));
            ids.sort(null);
            List<Integer> values = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                values.add(depth + i);
            }
            for (int i = values.size() - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                Integer swap = values.get(i);
                values.set(i, values.get(j));
                values.set(j, swap);
            }
            for (int i = 0; i < ids.size(); i++) {
                priorities.put(ids.get(i), values.get(i));
            }
            changePoints = new long[depth - 1];
            for (int i = 0; i < changePoints.length; i++) {
                changePoints[i] = 1 + random.nextLong(Math.max(1, expectedSteps));
            }
            java.util.Arrays.sort(changePoints);
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int best = 0;
            int bestPriority = Integer.MIN_VALUE;
            List<ChoicePoint.Enabled> events = point.events();
            for (int i = 0; i < events.size(); i++) {
                int priority = priorities.getOrDefault(events.get(i).node(), 0);
                if (priority > bestPriority) {
                    best = i;
                    bestPriority = priority;
                }
            }
            return best;
        }

        @Override
        boolean afterStep(SimulatedStep step, long stateHash) {
            while (nextChange < changePoints.length && changePoints[nextChange] <= step.step() + 1) {
                priorities.put(step.node(), nextChange + 1); // the i-th change: priority i, below every initial one (d and up)
                nextChange++;
            }
            return true;
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            return randomFault(probability);
        }

        @Override
        boolean randomTiming() {
            return true;
        }
    }

    /**
     * Partial-order sampling (Yuan et al.): every enabled event gets an independent uniform priority and the highest
     * runs; after an event runs, the events that race with it (handled by the same node) draw new priorities.
     */
    static final class Pos extends PathSource {
        private final Map<ChoicePoint.Key, Double> priorities = new HashMap<>();

        Pos(SimulationSettings settings, ExploreSettings explore, long seed) {
            super(settings, explore, seed);
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int best = 0;
            double bestPriority = -1;
            List<ChoicePoint.Enabled> events = point.events();
            for (int i = 0; i < events.size(); i++) {
                double priority = priorities.computeIfAbsent(events.get(i).key(), k -> random.nextDouble());
                if (priority > bestPriority) {
                    best = i;
                    bestPriority = priority;
                }
            }
            return best;
        }

        @Override
        boolean afterStep(SimulatedStep step, long stateHash) {
            NodeId node = step.node();
            for (Iterator<ChoicePoint.Key> keys = priorities.keySet().iterator(); keys.hasNext(); ) {
                if (keys.next().node().equals(node)) {
                    keys.remove();
                }
            }
            return true;
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            return randomFault(probability);
        }

        @Override
        boolean randomTiming() {
            return true;
        }
    }
}
