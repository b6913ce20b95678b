package dev.deja.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LamportClockTest {
    @Test
    void tick_advancesByOne() {
        LamportClock clock = new LamportClock(0);
        assertThat(clock.tick()).isEqualTo(1);
        assertThat(clock.tick()).isEqualTo(2);
        assertThat(clock.current()).isEqualTo(2);
    }

    @Test
    void receive_jumpsPastALargerCarriedClock() {
        LamportClock clock = new LamportClock(3);
        assertThat(clock.receive(10)).isEqualTo(11);
    }

    @Test
    void receive_ticksWhenTheCarriedClockIsSmaller() {
        LamportClock clock = new LamportClock(20);
        assertThat(clock.receive(5)).isEqualTo(21);
    }

    @Test
    void receive_isAlwaysGreaterThanTheSend() {
        LamportClock sender = new LamportClock(0);
        LamportClock receiver = new LamportClock(0);
        for (int i = 0; i < 100; i++) {
            long sent = sender.tick();
            long received = receiver.receive(sent);
            assertThat(received).isGreaterThan(sent);
            if (i % 3 == 0) {
                sender.receive(receiver.tick());
            }
        }
    }

    @Test
    void constructor_rejectsNegativeClocks() {
        assertThatThrownBy(() -> new LamportClock(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
