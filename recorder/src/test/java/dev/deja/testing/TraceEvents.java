package dev.deja.testing;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Builds trace events of every type for tests. */
public final class TraceEvents {
    /** A message record used in tests. */
    public record Ping(long number, String text, List<Integer> values) {
    }

    private TraceEvents() {
    }

    /** One event of each type, in a valid order for {@code node}, starting at seq 0. */
    public static List<TraceEvent> oneOfEachType(NodeId node) {
        MessageCodec codec = MessageCodec.defaultCodec();
        Payload ping = codec.encode(new Ping(7, "hello", List.of(1, 2, 3)));
        Payload large = codec.encode(new Ping(8, "x".repeat(500), List.of()));
        List<Event> events = List.of(
                new Event.Start("com.example.Node", Map.of("bug", "none", "size", "3"),
                        List.of(new NodeId("n2"), new NodeId("n3"))),
                new Event.Receive(new NodeId("client"), 41, (1L << 40) | 9, ping),
                new Event.Receive(new NodeId("n2"), 3, (2L << 40) | 1, large),
                new Event.Send(new NodeId("n2"), (1L << 40) | 1, ping.type(), MessageCodec.digest(ping)),
                new Event.TimerFired(12, codec.encode("retry")),
                new Event.ClockRead(1_763_000_000_123L),
                new Event.RandomDraw(-5_432_109_876_543_210L),
                new Event.StorageRead("accepted", new byte[] {1, 2, 3}),
                new Event.StorageRead("absent", null),
                new Event.StorageRead("empty", new byte[0]),
                new Event.Crash(1));
        List<TraceEvent> entries = new ArrayList<>();
        long lamport = 0;
        for (int i = 0; i < events.size(); i++) {
            lamport += 1 + i;
            entries.add(new TraceEvent(node, 2, i, lamport, 1_763_000_000_000L + i, events.get(i)));
        }
        return entries;
    }

    /** A deterministic pseudo-random event for {@code seq}, with payload sizes from 0 to about 70 KB. */
    public static TraceEvent pseudoRandom(NodeId node, long seed, long seq) {
        SplittableRandom random = new SplittableRandom(seed * 1_000_003L + seq);
        long lamport = seq * 2 + 1;
        Event event = switch (random.nextInt(5)) {
            case 0 -> new Event.RandomDraw(random.nextLong());
            case 1 -> new Event.ClockRead(random.nextLong(1L << 42));
            case 2 -> {
                byte[] bytes = new byte[random.nextInt(10) == 0 ? random.nextInt(70_000) : random.nextInt(300)];
                random.nextBytes(bytes);
                yield new Event.Receive(new NodeId("n" + random.nextInt(1, 9)), lamport - 1, seq,
                        new Payload("test.Blob", bytes));
            }
            case 3 -> new Event.Send(new NodeId("n2"), seq, "test.Blob", random.nextLong());
            default -> new Event.StorageRead("key-" + random.nextInt(100), random.nextBoolean() ? null
                    : ("value-" + "v".repeat(random.nextInt(200))).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        };
        return new TraceEvent(node, 1, seq, lamport, 1_000 + seq, event);
    }
}
