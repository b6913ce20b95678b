package dev.deja.explore.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoicePoint.EventKind;
import dev.deja.sim.StepObserver;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StateHasherTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    /** A node whose state does not change when its timer is re-armed. */
    static final class Ticker {
        int role = 1;
    }

    private static StepObserver.View view(long nowMillis, List<ChoicePoint.Enabled> pending) {
        Ticker ticker = new Ticker();
        return new StepObserver.View() {
            @Override
            public Map<NodeId, Object> liveNodes() {
                return Map.of(N1, ticker);
            }

            @Override
            public List<ChoicePoint.Enabled> pending() {
                return pending;
            }

            @Override
            public long virtualMillis() {
                return nowMillis;
            }
        };
    }

    private static ChoicePoint.Enabled timer(long id, long dueMillis) {
        return new ChoicePoint.Enabled(EventKind.TIMER, N1, null, id, 0, "Heartbeat", dueMillis, -1, 0);
    }

    private static ChoicePoint.Enabled delivery(long id, long dueMillis) {
        return new ChoicePoint.Enabled(EventKind.DELIVERY, N1, N2, id, 0, "Ping", dueMillis, -1, 42);
    }

    @Test
    void hash_stateShiftedInTime_isTheSame() {
        StateHasher hasher = new StateHasher(Set.of());
        long early = hasher.hash(view(100, List.of(timer(1, 150), delivery(7, 120))));
        long late = hasher.hash(view(1_100, List.of(timer(9, 1_150), delivery(8, 1_120))));
        assertThat(late).isEqualTo(early);
    }

    @Test
    void hash_timerReArmedToAnotherMomentRelativeToMessages_differs() {
        StateHasher hasher = new StateHasher(Set.of());
        long before = hasher.hash(view(100, List.of(timer(1, 150), delivery(7, 120))));
        long reArmed = hasher.hash(view(100, List.of(timer(2, 200), delivery(7, 120))));
        assertThat(reArmed).isNotEqualTo(before);
    }

    @Test
    void hash_messageDueAtAnotherMoment_differs() {
        StateHasher hasher = new StateHasher(Set.of());
        long sooner = hasher.hash(view(100, List.of(timer(1, 150), delivery(7, 120))));
        long later = hasher.hash(view(100, List.of(timer(1, 150), delivery(7, 140))));
        assertThat(later).isNotEqualTo(sooner);
    }

    @Test
    void hash_timerTagsDiffer_differs() {
        StateHasher hasher = new StateHasher(Set.of());
        long heartbeat = hasher.hash(view(0, List.of(timer(1, 50))));
        long election = hasher.hash(view(0, List.of(
                new ChoicePoint.Enabled(EventKind.TIMER, N1, null, 1, 0, "Election", 50, -1, 0))));
        assertThat(election).isNotEqualTo(heartbeat);
    }
}
