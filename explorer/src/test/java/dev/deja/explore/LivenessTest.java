package dev.deja.explore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LivenessTest {
    @Test
    void depths_areOneThreeTenUpToTheMaximum_andEndAtIt() {
        assertThat(Liveness.depths(10_000)).containsExactly(1, 3, 10, 30, 100, 300, 1000, 3000, 10_000);
        assertThat(Liveness.depths(1500)).containsExactly(1, 3, 10, 30, 100, 300, 1000, 1500);
        assertThat(Liveness.depths(1)).containsExactly(1);
    }

    @Test
    void share_isLivePathsOverJudgedPaths() {
        Liveness liveness = new Liveness("p", 4, List.of(new Liveness.DepthShare(10, 1), new Liveness.DepthShare(100, 3)),
                1, 50, Optional.empty());
        assertThat(liveness.share(liveness.byDepth().get(0))).isEqualTo(0.25);
        assertThat(liveness.share(liveness.byDepth().get(1))).isEqualTo(0.75);
        assertThat(new Liveness("p", 0, List.of(), 0, -1, Optional.empty()).share(new Liveness.DepthShare(1, 0))).isZero();
    }

    @Test
    void target_knownRecoverableAtOrAfterTheFirstNonLiveStep_isRefused() {
        assertThatThrownBy(() -> new LivenessSearch.Target("p", 10, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("knownRecoverable < nonLiveFrom");
        assertThat(new LivenessSearch.Target("p", 10, -1).knownRecoverable()).isEqualTo(-1);
    }

    @Test
    void criticalTransition_totals_sumItsProbes() {
        CriticalTransition found = new CriticalTransition("p", CriticalTransition.Verdict.C1_DEAD, 9, "n1", "timer", "", 8,
                3, 100, 5, List.of(new CriticalTransition.Probe(5, 1, 1, 7, 40), new CriticalTransition.Probe(9, 3, 0, -1, 300)),
                Optional.empty(), Optional.empty(), Optional.empty());
        assertThat(found.totalWalks()).isEqualTo(4);
        assertThat(found.totalSteps()).isEqualTo(340);
        assertThat(found.verdict().label()).isEqualTo("C1");
        assertThat(found.probes().get(1).recovers()).isFalse();
    }

    @Test
    void walks_negative_isRefused() {
        assertThatThrownBy(() -> ExploreSettings.builder().walks(-1).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--walks");
    }
}
