package dev.deja.check.examples;

import dev.deja.examples.chord.ChordNode;
import dev.deja.examples.chord.ChordRing;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The properties of {@code scripts/chord.py} computed in Java over a replay, independently of the script: at
 * every event that ran a handler, {@link ChordRing#problems} of the replayed nodes, turned into spans as the
 * checker makes them, with the time since the last membership change (a join or a failure) at the span's last
 * false event, which is what the script's {@code stabilized} measure grows from.
 */
final class ChordOracle {
    /** As {@code STABLE_AFTER_MS} in scripts/chord.py: how long after a join or failure a ring counts as stable. */
    static final long STABLE_AFTER_MILLIS = 2_000;

    /**
     * One stretch of events at which a property was false.
     *
     * @param openPosition      the event at which it turned false
     * @param endPosition       the event at which it turned true again; empty if still false at the end
     * @param lastFalseMillis   the clock of the last event at which it was false
     * @param sinceChangeMillis at that event, how long ago the set of live nodes last changed
     */
    record Span(ChordRing.Property property, long openPosition, Optional<Long> endPosition, long lastFalseMillis,
                long sinceChangeMillis, String firstProblem) {
        /** The script's stabilized measure at the last false event. */
        double stabilizedAtEnd() {
            return Math.min(1.0, sinceChangeMillis / (double) STABLE_AFTER_MILLIS);
        }

        /** Still false at the end of the run, or still false when the ring had been stable for a while. */
        boolean real() {
            return endPosition.isEmpty() || stabilizedAtEnd() >= 1.0;
        }
    }

    private ChordOracle() {
    }

    static List<Span> spans(Path trace) {
        List<Span> spans = new ArrayList<>();
        Map<ChordRing.Property, Span> open = new EnumMap<>(ChordRing.Property.class);
        Map<NodeId, ChordRing.View> views = new TreeMap<>();
        TreeSet<NodeId> live = new TreeSet<>();
        long[] changedAt = {0};
        List<Map<ChordRing.Property, List<String>>> problems = new ArrayList<>(List.of(ChordRing.problems(List.of())));
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (!event.startedHandler()) {
                return;
            }
            // A handler changes only its own node, so only that node's view can differ from the last event's.
            NodeId id = event.entry().node();
            long now = event.entry().atMillis();
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
            for (ChordRing.Property property : ChordRing.Property.values()) {
                List<String> wrong = problems.getFirst().get(property);
                Span span = open.get(property);
                if (!wrong.isEmpty()) {
                    open.put(property, new Span(property, span == null ? position : span.openPosition(), Optional.empty(),
                            now, now - changedAt[0], span == null ? wrong.getFirst() : span.firstProblem()));
                } else if (span != null) {
                    spans.add(new Span(property, span.openPosition(), Optional.of(position), span.lastFalseMillis(),
                            span.sinceChangeMillis(), span.firstProblem()));
                    open.remove(property);
                }
            }
        }));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("replay of " + trace + " diverged: " + result.divergences().getFirst().describe());
        }
        spans.addAll(open.values());
        spans.sort(java.util.Comparator.comparingLong(Span::openPosition));
        return spans;
    }
}
