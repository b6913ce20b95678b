package dev.deja.explore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.explore.ExploreSettings;
import dev.deja.explore.FaultBudget;
import dev.deja.explore.Strategy;
import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * The randomized strategies' scheduling, on a toy run that needs no simulator: nodes {@code A} ({@code n1}) and
 * {@code B} ({@code n2}) each have {@value #PER_NODE} events to handle one after the other, both always enabled
 * until done; a schedule is the order in which the nodes ran, e.g. {@code AABBBA}. Seeds 1 to {@value #SEEDS}.
 */
class RandomizedSourcesTest {
    private static final int PER_NODE = 3;
    private static final int SEEDS = 5000;
    private static final NodeId A = new NodeId("n1");
    private static final NodeId B = new NodeId("n2");
    private static final SimulationSettings TWO_NODES = SimulationSettings.builder()
            .node(A, "toy.Node", Map.of()).node(B, "toy.Node", Map.of()).seed(1).build();

    private static ExploreSettings settings(Strategy strategy, int pctDepth) {
        return ExploreSettings.builder().strategy(strategy).pctDepth(pctDepth).faults(FaultBudget.NONE).build();
    }

    /** The order in which the nodes ran under {@code source}. */
    private static String schedule(PathSource source) {
        int[] done = new int[2];
        StringBuilder order = new StringBuilder();
        for (long step = 0; done[0] < PER_NODE || done[1] < PER_NODE; step++) {
            List<ChoicePoint.Enabled> events = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                if (done[n] < PER_NODE) {
                    events.add(new ChoicePoint.Enabled(ChoicePoint.EventKind.DELIVERY, n == 0 ? A : B, n == 0 ? B : A,
                            n * 100L + done[n], 0, "Work", step, -1, 0));
                }
            }
            int answer = source.pick(new ChoicePoint.NextEvent(step, events), events.size());
            ChoicePoint.Enabled chosen = events.get(answer);
            int n = chosen.node().equals(A) ? 0 : 1;
            done[n]++;
            order.append(n == 0 ? 'A' : 'B');
            source.afterStep(new SimulatedStep(step, chosen, true, null, null), 0);
        }
        return order.toString();
    }

    /** How often the running node changed: 1 for AAABBB, 2 for AABBBA. */
    private static int switches(String schedule) {
        int count = 0;
        for (int i = 1; i < schedule.length(); i++) {
            if (schedule.charAt(i) != schedule.charAt(i - 1)) {
                count++;
            }
        }
        return count;
    }

    private static List<String> schedules(LongFunction<PathSource> source) {
        List<String> schedules = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            schedules.add(schedule(source.apply(seed)));
        }
        return schedules;
    }

    private static LongFunction<PathSource> pct(int depth) {
        return seed -> new RandomizedSources.Pct(TWO_NODES, settings(Strategy.PCT, depth), seed, 2 * PER_NODE);
    }

    @Test
    void pct_depthOne_runsTheHighestPriorityNodeToTheEnd() {
        // Without a priority change point, a node keeps the processor while it has work: no A..B..A ordering.
        assertThat(schedules(pct(1))).allMatch(s -> switches(s) == 1).contains("AAABBB", "BBBAAA");
    }

    @Test
    void pct_depthTwo_reachesAnOrderingThatNeedsOnePriorityChange() {
        List<String> schedules = schedules(pct(2));
        // One change point: at most two switches (Burckhardt et al.: d - 1 priority changes), and some seeds take it.
        assertThat(schedules).allMatch(s -> switches(s) <= 2);
        assertThat(schedules).anyMatch(s -> switches(s) == 2);
    }

    @Test
    void pct_sameSeed_sameSchedule() {
        assertThat(schedules(pct(3))).isEqualTo(schedules(pct(3)));
    }

    private static LongFunction<PathSource> pos() {
        return seed -> new RandomizedSources.Pos(TWO_NODES, settings(Strategy.POS, 1), seed);
    }

    @Test
    void pos_reachesEveryInterleaving_andIsDeterministicPerSeed() {
        List<String> schedules = schedules(pos());
        // C(6, 3) = 20 ways to interleave two nodes' three events each; the rarest (BABABA, ABABAB: each priority
        // below the one before, 1 in 720) show up a few times in 5,000 seeds.
        Set<String> distinct = new HashSet<>(schedules);
        assertThat(distinct).hasSize(20);
        assertThat(schedules(pos())).isEqualTo(schedules);
    }

    /** How many of 10,000 choices between one enabled delivery and one enabled timer picked the delivery. */
    private static int deliveries(ExploreSettings settings) {
        RandomizedSources.RandomWalk walk = new RandomizedSources.RandomWalk(TWO_NODES, settings, 7);
        List<ChoicePoint.Enabled> events = List.of(
                new ChoicePoint.Enabled(ChoicePoint.EventKind.DELIVERY, A, B, 1, 0, "Work", 0, -1, 0),
                new ChoicePoint.Enabled(ChoicePoint.EventKind.TIMER, B, B, 2, 0, "Tick", 0, -1, 0));
        int count = 0;
        for (int i = 0; i < 10_000; i++) {
            if (walk.pick(new ChoicePoint.NextEvent(i, events), 2) == 0) {
                count++;
            }
        }
        return count;
    }

    @Test
    void weights_changeTheMixOfEvents_inProportion() {
        int even = deliveries(ExploreSettings.builder().build());
        int fourToOne = deliveries(ExploreSettings.builder().weight(ChoicePoint.EventKind.DELIVERY, 4)
                .weight(ChoicePoint.EventKind.TIMER, 1).build());
        int noTimers = deliveries(ExploreSettings.builder().weight(ChoicePoint.EventKind.TIMER, 0).build());
        System.out.printf("RandomizedSourcesTest: deliveries of 10,000 choices: even %d, delivery=4,timer=1 %d, "
                + "timer=0 %d%n", even, fourToOne, noTimers);
        assertThat(even).isBetween(4_700, 5_300);
        assertThat(fourToOne).isBetween(7_700, 8_300);
        assertThat(noTimers).isEqualTo(10_000);
    }

    @Test
    void partitionBudget_allowsAsManyIsolationsAsGiven() {
        ExploreSettings settings = ExploreSettings.builder().faults(new FaultBudget(0, 0, 0, 2)).faultRate(1).build();
        RandomizedSources.RandomWalk walk = new RandomizedSources.RandomWalk(TWO_NODES, settings, 1);
        List<Boolean> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(walk.chance(new ChoicePoint.Isolate(i, A), 0));
        }
        assertThat(answers).containsExactly(true, true, false, false);
    }
}
