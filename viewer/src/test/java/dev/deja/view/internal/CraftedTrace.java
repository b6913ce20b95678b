package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes node logs entry by entry with Lamport clocks kept as the runtime keeps them (a receive jumps past
 * the sender's clock at the send), then orders them as the replayer's merge does: by (Lamport clock, node,
 * seq). For model and export tests that need exact control over a small trace without a recording.
 */
final class CraftedTrace {
    /** A message as the nodes exchange it. */
    record Note(String text) {
    }

    private final Map<NodeId, List<TraceEvent>> logs = new LinkedHashMap<>();
    private final Map<NodeId, Long> clocks = new HashMap<>();
    private final Map<NodeId, Integer> incarnations = new HashMap<>();
    private final Map<NodeId, Long> messageCounters = new HashMap<>();
    private final List<NodeId> crashedAtEnd = new ArrayList<>();

    /** A reference to a send, for receiving it. */
    record Sent(NodeId from, NodeId to, long messageId, long lamport, Payload payload) {
    }

    CraftedTrace(String... nodes) {
        for (String node : nodes) {
            NodeId id = new NodeId(node);
            logs.put(id, new ArrayList<>());
            clocks.put(id, 0L);
            incarnations.put(id, 1);
        }
    }

    private TraceEvent append(NodeId node, long lamport, Event event) {
        List<TraceEvent> log = logs.get(node);
        TraceEvent entry = new TraceEvent(node, incarnations.get(node), log.size(), lamport, 1_000 + lamport, event);
        log.add(entry);
        clocks.put(node, lamport);
        return entry;
    }

    private TraceEvent tick(String node, Event event) {
        NodeId id = new NodeId(node);
        return append(id, clocks.get(id) + 1, event);
    }

    CraftedTrace start(String node) {
        NodeId id = new NodeId(node);
        List<NodeId> peers = logs.keySet().stream().filter(p -> !p.equals(id)).toList();
        tick(node, new Event.Start("test.Node", Map.of("mode", "test"), peers));
        return this;
    }

    Sent send(String from, String to, String text) {
        NodeId sender = new NodeId(from);
        long id = ((long) incarnations.get(sender) << 40) | messageCounters.merge(sender, 1L, Long::sum);
        Payload payload = MessageCodec.defaultCodec().encode(new Note(text));
        TraceEvent entry = tick(from, new Event.Send(new NodeId(to), id, Note.class.getName(), MessageCodec.digest(payload)));
        return new Sent(sender, new NodeId(to), id, entry.lamport(), payload);
    }

    CraftedTrace receive(Sent sent) {
        NodeId to = sent.to();
        append(to, Math.max(clocks.get(to), sent.lamport()) + 1,
                new Event.Receive(sent.from(), sent.lamport(), sent.messageId(), sent.payload()));
        return this;
    }

    /** A message from an unrecorded node (a client) with the given clock at its send. */
    CraftedTrace receiveFromOutside(String client, String to, long clientLamport, String text) {
        NodeId id = new NodeId(to);
        append(id, Math.max(clocks.get(id), clientLamport) + 1, new Event.Receive(new NodeId(client), clientLamport,
                (1L << 40) | 1, MessageCodec.defaultCodec().encode(new Note(text))));
        return this;
    }

    CraftedTrace timer(String node, long timerId, String tag) {
        tick(node, new Event.TimerFired(timerId, MessageCodec.defaultCodec().encode(tag)));
        return this;
    }

    CraftedTrace clock(String node, long millis) {
        tick(node, new Event.ClockRead(millis));
        return this;
    }

    /** Kills {@code node} and starts its next incarnation (a crash entry, then a start). */
    CraftedTrace crashAndRestart(String node) {
        NodeId id = new NodeId(node);
        int crashed = incarnations.get(id);
        incarnations.put(id, crashed + 1);
        tick(node, new Event.Crash(crashed));
        start(node);
        return this;
    }

    /** Marks {@code node}'s last incarnation as not ended cleanly. */
    CraftedTrace killedAtEnd(String node) {
        crashedAtEnd.add(new NodeId(node));
        return this;
    }

    /** Every entry in the merge's order. */
    List<TraceEvent> merged() {
        List<TraceEvent> all = new ArrayList<>();
        logs.values().forEach(all::addAll);
        all.sort(Comparator.comparingLong(TraceEvent::lamport).thenComparing(TraceEvent::node)
                .thenComparingLong(TraceEvent::seq));
        return all;
    }

    ColumnarTraceModel model() {
        return model("crafted");
    }

    /** The model, named {@code name} (two crafted runs compared side by side). */
    ColumnarTraceModel model(String name) {
        TraceModelBuilder builder = new TraceModelBuilder(name, List.copyOf(logs.keySet()));
        merged().forEach(builder::add);
        crashedAtEnd.forEach(builder::lastIncarnationCrashed);
        return builder.build();
    }
}
