package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import dev.deja.trace.internal.EntryCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
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
            byte[] stored = codec.encodeToArray(event);
            assertThat(codec.decode(NODE, stored)).isEqualTo(event);
        }
    }

    @Test
    void encode_compressesLargeBodies() {
        EntryCodec codec = new EntryCodec();
        TraceEvent large = TraceEvents.oneOfEachType(NODE).get(2); // a 500-character message
        byte[] stored = codec.encodeToArray(large);
        assertThat(stored.length).isLessThan(200);
        assertThat(stored[4]).as("LZ4 flag").isEqualTo((byte) 1);
        assertThat(codec.decode(NODE, stored)).isEqualTo(large);
    }

    @Test
    void decode_rejectsAnyFlippedByte() {
        EntryCodec codec = new EntryCodec();
        for (TraceEvent event : TraceEvents.oneOfEachType(NODE)) {
            byte[] stored = codec.encodeToArray(event);
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
        byte[] stored = codec.encodeToArray(TraceEvents.oneOfEachType(NODE).get(0));
        for (int length = 0; length < stored.length; length++) {
            byte[] truncated = java.util.Arrays.copyOf(stored, length);
            assertThatThrownBy(() -> codec.decode(NODE, truncated)).isInstanceOf(EntryCodec.CorruptEntryException.class);
        }
    }

    @Test
    void encode_matchesChronicleBytesEncodingOfFormat1_byteForByte() {
        long seed = Long.getLong("deja.codecSeed", System.nanoTime());
        System.out.println("EntryCodecTest seed " + seed + " (rerun: -Ddeja.codecSeed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        EntryCodec codec = new EntryCodec(1);
        List<TraceEvent> events = new ArrayList<>(TraceEvents.oneOfEachType(NODE));
        for (int i = 0; i < 2_000; i++) {
            events.add(randomEvent(random, i));
        }
        for (TraceEvent event : events) {
            byte[] stored = codec.encodeToArray(event);
            assertThat(codec.lastRawLength()).as("seed %d: %s", seed, event)
                    .isEqualTo(ChronicleReferenceEncoding.body(event).length);
            assertThat(stored).as("seed %d: %s", seed, event)
                    .isEqualTo(ChronicleReferenceEncoding.entry(event, 256));
            assertThat(codec.decode(NODE, stored)).as("seed %d", seed).isEqualTo(event);
        }
    }

    @Test
    void decode_readsEntriesWrittenByTheFirstEncoder_compressedFrom96Bytes() {
        long seed = Long.getLong("deja.codecSeed", System.nanoTime());
        System.out.println("EntryCodecTest seed " + seed + " (rerun: -Ddeja.codecSeed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        EntryCodec codec = new EntryCodec(1);
        int compressed = 0;
        for (int i = 0; i < 2_000; i++) {
            TraceEvent event = randomEvent(random, i);
            byte[] stored = ChronicleReferenceEncoding.entry(event, 96);
            compressed += stored[4];
            assertThat(codec.decode(NODE, stored)).as("seed %d", seed).isEqualTo(event);
        }
        assertThat(compressed).as("entries stored compressed").isPositive();
    }

    @Test
    void decode_ofRandomEntriesInTheirOrder_returnsThem() {
        long seed = Long.getLong("deja.codecSeed", System.nanoTime());
        System.out.println("EntryCodecTest seed " + seed + " (rerun: -Ddeja.codecSeed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        EntryCodec writer = new EntryCodec();
        EntryCodec reader = new EntryCodec();
        for (int i = 0; i < 2_000; i++) {
            TraceEvent event = randomEvent(random, i);
            assertThat(reader.decode(NODE, writer.encodeToArray(event))).as("seed %d", seed).isEqualTo(event);
        }
    }

    @Test
    void classNames_areSpelledOutOncePerLog() {
        EntryCodec writer = new EntryCodec();
        TraceEvent send = TraceEvents.oneOfEachType(NODE).get(3);
        String type = ((Event.Send) send.event()).messageType();
        byte[] first = writer.encodeToArray(send);
        byte[] second = writer.encodeToArray(send);
        assertThat(first.length - second.length).isEqualTo(type.length() + 1);

        EntryCodec reader = new EntryCodec();
        assertThat(reader.decode(NODE, first)).isEqualTo(send);
        assertThat(reader.decode(NODE, second)).isEqualTo(send);
        assertThatThrownBy(() -> new EntryCodec().decode(NODE, second))
                .isInstanceOf(EntryCodec.CorruptEntryException.class)
                .hasMessageContaining("class 1 is not defined in the log before this entry");

        writer.startLog();
        reader.startLog();
        byte[] nextLog = writer.encodeToArray(send);
        assertThat(nextLog).isEqualTo(first);
        assertThat(reader.decode(NODE, nextLog)).isEqualTo(send);
    }

    @Test
    void decode_ofAReusedBuffer_readsOnlyTheGivenRange() {
        EntryCodec codec = new EntryCodec();
        byte[] buffer = new byte[4096];
        java.util.Arrays.fill(buffer, (byte) 0x55);
        for (TraceEvent event : TraceEvents.oneOfEachType(NODE)) {
            byte[] stored = codec.encodeToArray(event);
            System.arraycopy(stored, 0, buffer, 7, stored.length);
            assertThat(codec.decode(NODE, buffer, 7, stored.length)).isEqualTo(event);
        }
    }

    /** Events with strings of every UTF-8 width (surrogate pairs included), numbers of every size and sign. */
    private static TraceEvent randomEvent(SplittableRandom random, long seq) {
        long number = switch (random.nextInt(4)) {
            case 0 -> random.nextLong(128);
            case 1 -> random.nextLong(1L << 21);
            case 2 -> random.nextLong();
            default -> -random.nextLong(1L << 40);
        };
        Event event = switch (random.nextInt(8)) {
            case 0 -> new Event.Start(text(random), Map.of(text(random), text(random), "k" + seq, text(random)),
                    List.of(new NodeId("n" + random.nextInt(100)), new NodeId("peer-" + seq)));
            case 1 -> new Event.Receive(new NodeId("n" + random.nextInt(1000)), number, random.nextLong(),
                    new Payload(text(random), bytes(random)));
            case 2 -> new Event.Send(new NodeId("node." + random.nextInt(10)), number, text(random), random.nextLong());
            case 3 -> new Event.TimerFired(number, new Payload("java.lang.String", bytes(random)));
            case 4 -> new Event.ClockRead(number);
            case 5 -> new Event.RandomDraw(number);
            case 6 -> new Event.StorageRead(text(random).isEmpty() ? "k" : text(random), random.nextBoolean() ? null
                    : bytes(random));
            default -> new Event.Crash(random.nextInt(1, 1000));
        };
        return new TraceEvent(NODE, random.nextInt(1, 300), seq, Math.abs(number) + seq, random.nextLong(1L << 42),
                event);
    }

    private static String text(SplittableRandom random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(8) == 0 ? random.nextInt(300) : random.nextInt(40);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(6)) {
                case 0 -> text.append((char) random.nextInt(0x80, 0x800));
                case 1 -> text.append((char) random.nextInt(0x800, 0xD800));
                case 2 -> text.appendCodePoint(random.nextInt(0x10000, 0x10FFFF));
                default -> text.append((char) random.nextInt(0x20, 0x7F));
            }
        }
        return text.toString();
    }

    private static byte[] bytes(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(10) == 0 ? random.nextInt(5_000) : random.nextInt(200)];
        // Half repetitive (compressible), half random.
        if (random.nextBoolean()) {
            random.nextBytes(bytes);
        } else {
            java.util.Arrays.fill(bytes, (byte) random.nextInt(256));
        }
        return bytes;
    }
}
