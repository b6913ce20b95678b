package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import dev.deja.trace.internal.EntryCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class EntryCodecTest {
    private static final NodeId NODE = new NodeId("n1");

    @Test
    void decode_returnsEveryEventTypeUnchanged() {
        EntryCodec codec = new EntryCodec();
        List<TraceEvent> events = TraceEvents.oneOfEachType(NODE);
        assertThat(events.stream().map(e -> e.event().typeName()).distinct())
                .containsExactlyInAnyOrder("start", "receive", "send", "timer", "clock", "random", "storage-read", "crash");
        for (TraceEvent event : events) {
            byte[] stored = codec.encode(event).toByteArray();
            assertThat(codec.decode(NODE, stored)).isEqualTo(event);
        }
    }

    @Test
    void encode_compressesLargeBodies() {
        EntryCodec codec = new EntryCodec();
        TraceEvent large = TraceEvents.oneOfEachType(NODE).get(2); // a 500-character message
        byte[] stored = codec.encode(large).toByteArray();
        assertThat(stored.length).isLessThan(200);
        assertThat(stored[4]).as("LZ4 flag").isEqualTo((byte) 1);
        assertThat(codec.decode(NODE, stored)).isEqualTo(large);
    }

    @Test
    void decode_rejectsAnyFlippedByte() {
        EntryCodec codec = new EntryCodec();
        for (TraceEvent event : TraceEvents.oneOfEachType(NODE)) {
            byte[] stored = codec.encode(event).toByteArray();
            for (int i = 0; i < stored.length; i++) {
                byte[] corrupted = stored.clone();
                corrupted[i] ^= 0x10;
                assertThatThrownBy(() -> codec.decode(NODE, corrupted))
                        .as("flipped byte %d of %s", i, event)
                        .isInstanceOf(EntryCodec.CorruptEntryException.class);
            }
        }
    }

    @Test
    void decode_rejectsTruncatedEntries() {
        EntryCodec codec = new EntryCodec();
        byte[] stored = codec.encode(TraceEvents.oneOfEachType(NODE).get(0)).toByteArray();
        for (int length = 0; length < stored.length; length++) {
            byte[] truncated = java.util.Arrays.copyOf(stored, length);
            assertThatThrownBy(() -> codec.decode(NODE, truncated)).isInstanceOf(EntryCodec.CorruptEntryException.class);
        }
    }
}
