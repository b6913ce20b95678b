package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatNoException;

import org.junit.jupiter.api.Test;

/** When a one-shot check with interpreted predicates asks to start again with the JIT (times given, never measured). */
class JitRestartTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void check_moreThanTwelveSecondsLeftAtASteadyPace_restartsOnceJudged() {
        JitRestart restart = new JitRestart(250);
        restart.check(0, 20_000, 0);
        // After less than half a second: no judgement yet.
        assertThatNoException().isThrownBy(() -> restart.check(400, 20_000, SECOND * 4 / 10));
        // 1,000 events a second, 19,000 left: 19 s.
        assertThatThrownBy(() -> restart.check(1_000, 20_000, SECOND)).isInstanceOf(JitRestart.Restart.class);
    }

    @Test
    void check_eventsLeftWithinTwelveSecondsAtTheLatestPace_goesOn() {
        JitRestart restart = new JitRestart(250);
        restart.check(0, 10_000, 0);
        // 1,000 events a second, 9,000 left: 9 s.
        assertThatNoException().isThrownBy(() -> restart.check(1_000, 10_000, SECOND));
        assertThatNoException().isThrownBy(() -> restart.check(5_000, 10_000, 5 * SECOND));
    }

    @Test
    void check_paceGrowingLate_restartsAtTheFirstSlowWindow_withTheLaunchersStatus() {
        JitRestart restart = new JitRestart(250);
        restart.check(1_500, 26_000, 0);
        // The first 10,000 events in no time (shorter than a window: no judgement), then 1,000 in 3 s.
        assertThatNoException().isThrownBy(() -> restart.check(10_500, 26_000, SECOND / 10));
        assertThatThrownBy(() -> restart.check(11_500, 26_000, 3 * SECOND + SECOND / 10))
                .isInstanceOfSatisfying(JitRestart.Restart.class, r -> {
                    assertThat(r.status()).isEqualTo(250);
                    assertThat(r.getMessage()).contains("ms per event interpreted").contains("14,500 events left")
                            .contains("starts again with the Graal JIT");
                });
    }

    @Test
    void check_withoutTheLaunchersRequest_neverRestarts() {
        JitRestart restart = new JitRestart(-1);
        restart.check(0, 1_000_000, 0);
        assertThatNoException().isThrownBy(() -> restart.check(1, 1_000_000, 100 * SECOND));
    }
}
