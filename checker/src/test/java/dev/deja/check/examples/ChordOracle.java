package dev.deja.check.examples;

import dev.deja.examples.chord.ChordNode;
import dev.deja.examples.chord.ChordRing;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The predicates of {@code scripts/chord.py} computed in Java over a replay, independently of the script: at every
 * event that ran a handler, {@link ChordRing#problems} of the replayed nodes, turned into findings as the checker
 * makes them: a span per stretch of events at which an {@code @eventually} property is false, a finding per event
 * at which an {@code @always} one turns false. The {@code *_once_stable} predicates are the ring and finger
 * properties asked only when the set of live nodes has not changed for {@link #STABLE_AFTER_MILLIS}, by the latest
 * clock seen so far.
 */
final class ChordOracle {
    /** As {@code STABLE_AFTER_MS} in scripts/chord.py: how long after a join or failure a ring counts as stable. */
    static final long STABLE_AFTER_MILLIS = 2_000;

    /**
     * One finding, as the checker would report it.
     *
     * @param predicate         the script's predicate
     * @param always            a safety predicate (a finding per event it turns false at) or a liveness span
     * @param position          the event at which it turned false
     * @param endPosition       for a span, the event at which it turned true again; empty if still false at the end
     * @param sinceChangeMillis for a span, how long the live set had been unchanged at its last false event
     */
    record Finding(String predicate, boolean always, long position, Optional<Long> endPosition, long sinceChangeMillis) {
        /** A safety violation, a span still open at the end, or a span still false once the ring was stable. */
        boolean real() {
            return always || endPosition.isEmpty() || sinceChangeMillis >= STABLE_AFTER_MILLIS;
        }

        @Override
        public String toString() {
            return predicate + " " + position + (always ? "" : ".." + endPosition.map(String::valueOf).orElse("end"))
                    + (real() ? " real" : "");
        }
    }

    private ChordOracle() {
    }

    static List<Finding> findings(Path trace) {
        List<Finding> findings = new ArrayList<>();
        Map<String, Finding> open = new LinkedHashMap<>();
        Map<NodeId, ChordRing.View> views = new TreeMap<>();
        TreeSet<NodeId> live = new TreeSet<>();
        long[] changedAt = {0};
        long[] latest = {Long.MIN_VALUE};
        List<Map<ChordRing.Property, List<String>>> problems = new ArrayList<>(List.of(ChordRing.problems(List.of())));
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (!event.startedHandler()) {
                return;
            }
            // A handler changes only its own node, so only that node's view can differ from the last event's.
            NodeId id = event.entry().node();
            // As the script's clock(): the latest clock so far, since the merged order interleaves nodes' clocks.
            latest[0] = Math.max(latest[0], event.entry().atMillis());
            long now = latest[0];
            if (state.node(id).orElse(null) instanceof ChordNode chord) {
                ChordRing.View view = chord.view();
                if (!view.equals(views.put(id, view))) {
                    problems.set(0, ChordRing.problems(views.values()));
                    if (view.live() != live.contains(id)) {
                        if (view.live()) {
                            live.add(id);
                        } else {
                            live.remove(id);
                        }
                        changedAt[0] = now;
                    }
                }
            }
            long since = now - changedAt[0];
            Map<ChordRing.Property, List<String>> wrong = problems.getFirst();
            Map<String, Boolean> holds = new LinkedHashMap<>();
            for (ChordRing.Property property : ChordRing.Property.values()) {
                holds.put(property.predicate(), wrong.get(property).isEmpty());
            }
            boolean stable = since >= STABLE_AFTER_MILLIS;
            holds.put("ring_consistent_once_stable", !stable || wrong.get(ChordRing.Property.RING_CONSISTENCY).isEmpty());
            holds.put("fingers_correct_once_stable", !stable || wrong.get(ChordRing.Property.FINGERS_CORRECT).isEmpty());
            for (Map.Entry<String, Boolean> predicate : holds.entrySet()) {
                String name = predicate.getKey();
                boolean always = name.endsWith("_once_stable")
                        || name.equals(ChordRing.Property.PRED_SELF_IFF_SUCC_SELF.predicate());
                Finding span = open.get(name);
                if (!predicate.getValue()) {
                    if (span == null && always) {
                        findings.add(new Finding(name, true, position, Optional.empty(), since));
                    }
                    open.put(name, new Finding(name, always, span == null ? position : span.position(), Optional.empty(),
                            since));
                } else if (span != null) {
                    if (!always) {
                        findings.add(new Finding(name, false, span.position(), Optional.of(position), span.sinceChangeMillis()));
                    }
                    open.remove(name);
                }
            }
        }));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("replay of " + trace + " diverged: " + result.divergences().getFirst().describe());
        }
        open.values().stream().filter(span -> !span.always()).forEach(findings::add);
        findings.sort(Comparator.comparingLong(Finding::position).thenComparing(Finding::predicate));
        return findings;
    }
}
