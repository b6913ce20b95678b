package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class EventKindTest {
    @Test
    void codes_areTheFormatsAndReadBackToTheirKind() {
        // The codes are in every recorded log: format 1 and 2 numbered the kinds 1 to 8 in this order.
        assertThat(Arrays.stream(EventKind.values()).map(EventKind::code))
                .containsExactly((byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5, (byte) 6, (byte) 7, (byte) 8);
        for (EventKind kind : EventKind.values()) {
            assertThat(EventKind.ofCode(kind.code())).isSameAs(kind);
        }
    }

    @Test
    void ofCode_ofAnUnknownCode_namesIt() {
        assertThat(EventKind.isCode(0)).isFalse();
        assertThat(EventKind.isCode(9)).isFalse();
        assertThat(EventKind.isCode(-1)).isFalse();
        assertThatThrownBy(() -> EventKind.ofCode(9)).hasMessage("unknown event type code 9");
    }

    @Test
    void namesAndDispatch_areThoseOfTheRecordedEvents() {
        assertThat(Arrays.stream(EventKind.values()).map(EventKind::traceName))
                .containsExactly("start", "receive", "send", "timer", "clock", "random", "storage-read", "crash");
        assertThat(Arrays.stream(EventKind.values()).filter(EventKind::isDispatch))
                .containsExactly(EventKind.START, EventKind.RECEIVE, EventKind.TIMER);
        Event crash = new Event.Crash(1);
        assertThat(crash.kind()).isEqualTo(EventKind.CRASH);
        assertThat(crash.typeName()).isEqualTo("crash");
        assertThat(crash.isDispatch()).isFalse();
        Event timer = new Event.TimerFired(3, new Payload("java.lang.String", new byte[0]));
        assertThat(timer.typeName()).isEqualTo("timer");
        assertThat(timer.isDispatch()).isTrue();
    }
}
