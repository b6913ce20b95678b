package dev.deja.check.examples;

import dev.deja.examples.store.StoreAudit;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The spans {@code scripts/store.py} should report, computed without Python: a plain replay, {@link StoreAudit}
 * after every handler event, and the same stabilization measure (how long the oldest current problem has lasted
 * since membership last changed, on the latest clock seen). Fast enough to judge many seeds.
 */
final class StoreOracle {
    /** The script's predicates and the audit's problems each one stands for, in the script's order. */
    static final Map<String, Function<StoreAudit, Map<String, String>>> PREDICATES = predicates();

    private StoreOracle() {
    }

    /**
     * One span of one predicate.
     *
     * @param predicate         the script predicate's name
     * @param start             the position of the event where it turned false
     * @param node              the node of that event
     * @param type              that event's type ({@code receive}, {@code timer}, {@code crash}, ...)
     * @param messageType       for a receive, the message's simple type
     * @param incarnation       that node's incarnation
     * @param end               the position where it turned true again; empty if still false at the end
     * @param stabilizedAtEnd   the stabilization measure at its last false event, in ms
     * @param problemsAtEnd     what was wrong at its last false event
     */
    record Span(String predicate, long start, String node, String type, Optional<String> messageType, int incarnation,
                Optional<Long> end, long stabilizedAtEnd, List<String> problemsAtEnd) {
        boolean real(long realMillis) {
            return stabilizedAtEnd >= realMillis;
        }
    }

    private static Map<String, Function<StoreAudit, Map<String, String>>> predicates() {
        Map<String, Function<StoreAudit, Map<String, String>>> out = new LinkedHashMap<>();
        out.put("index_ownership", StoreAudit::ownership);
        out.put("complete_reference", StoreAudit::references);
        out.put("replica_degree", StoreAudit::degree);
        return out;
    }

    /** Every span of every predicate in a replay of {@code trace}, by start position. */
    static List<Span> spans(Path trace) {
        List<Span> spans = new ArrayList<>();
        Map<String, Tracker> trackers = new LinkedHashMap<>();
        PREDICATES.keySet().forEach(name -> trackers.put(name, new Tracker(name)));
        long[] clock = {Long.MIN_VALUE};
        // Only the node of an event changes at it: audit again only when its audited state did.
        Map<NodeId, StoreAudit.NodeState> states = new TreeMap<>();
        StoreAudit[] audit = {StoreAudit.ofStates(states)};
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (!event.startedHandler()) {
                return;
            }
            clock[0] = Math.max(clock[0], event.entry().atMillis());
            NodeId node = event.entry().node();
            Optional<StoreAudit.NodeState> now = state.node(node).flatMap(StoreAudit.NodeState::of);
            if (!now.equals(Optional.ofNullable(states.get(node)))) {
                now.ifPresentOrElse(s -> states.put(node, s), () -> states.remove(node));
                audit[0] = StoreAudit.ofStates(states);
            }
            for (Tracker tracker : trackers.values()) {
                tracker.step(PREDICATES.get(tracker.predicate).apply(audit[0]), audit[0].membershipChangedAtMillis(),
                        clock[0], position, event.entry(), spans);
            }
        }));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("the replay of " + trace + " diverged: " + result.divergences().getFirst().describe());
        }
        trackers.values().forEach(tracker -> tracker.finish(spans));
        spans.sort((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start()) : a.predicate().compareTo(b.predicate()));
        return spans;
    }

    /** One predicate's problems over time: when each began, and its open span. */
    private static final class Tracker {
        final String predicate;
        Map<String, Long> since = new TreeMap<>();
        Span open;
        long stabilized;
        List<String> problems = List.of();

        Tracker(String predicate) {
            this.predicate = predicate;
        }

        void step(Map<String, String> now, long membershipChangedAt, long clock, long position, TraceEvent entry,
                  List<Span> spans) {
            Map<String, Long> next = new TreeMap<>();
            now.keySet().forEach(object -> next.put(object, since.getOrDefault(object, clock)));
            since = next;
            if (open != null && now.isEmpty()) {
                spans.add(withEnd(Optional.of(position)));
                open = null;
            } else if (open == null && !now.isEmpty()) {
                Optional<String> messageType = entry.event() instanceof Event.Receive receive
                        ? Optional.of(receive.message().simpleType()) : Optional.empty();
                open = new Span(predicate, position, entry.node().value(), entry.event().typeName(), messageType,
                        entry.incarnation(), Optional.empty(), 0, List.of());
            }
            if (!now.isEmpty()) {
                long oldest = since.values().stream().mapToLong(Long::longValue).min().orElseThrow();
                // A node's start reads its clock a moment after its first entry's time: never below zero.
                stabilized = Math.max(0, clock - Math.max(oldest, membershipChangedAt));
                problems = List.copyOf(now.values());
            }
        }

        void finish(List<Span> spans) {
            if (open != null) {
                spans.add(withEnd(Optional.empty()));
            }
        }

        private Span withEnd(Optional<Long> end) {
            return new Span(open.predicate(), open.start(), open.node(), open.type(), open.messageType(),
                    open.incarnation(), end, stabilized, problems);
        }
    }
}
