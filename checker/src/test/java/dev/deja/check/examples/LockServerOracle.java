package dev.deja.check.examples;

import dev.deja.examples.lockserver.LockServer;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What {@code scripts/lockserver.py} should find in a trace, computed in Java from the replayed nodes' fields,
 * independently of the script and without Python: the spans during which the server's pending queue is non-empty,
 * each with {@code enough_time} at its last non-empty event (how long, on the server's clock, the queue had kept
 * its size), and the clients stuck in the paper's livelock at the end of the trace (a revoke received but held
 * up by a pending release of the same lock).
 */
final class LockServerOracle {
    private static final NodeId SERVER = new NodeId("server");

    /** A span of a non-empty pending queue, from the event that filled it to the event that emptied it. */
    record Span(long start, Optional<Long> end, long enoughTimeAtEnd) {
    }

    /**
     * @param spans        every span, in order; the last may be open ({@code end} empty)
     * @param stuckRevokes at the end of the trace, {@code client lock N} for every revoke held up by a pending
     *                     release of the same lock, with the number of releases the server denied
     * @param entries      how many entries the trace has
     */
    record Analysis(List<Span> spans, List<String> stuckRevokes, long entries) {
        /** Spans whose enough_time at their end exceeds {@code thresholdMillis}: the real alarms. */
        List<Span> over(long thresholdMillis) {
            return spans.stream().filter(s -> s.enoughTimeAtEnd() > thresholdMillis).toList();
        }

        /** Spans at or under the threshold: the false alarms that enough_time screens out. */
        long falseAlarms(long thresholdMillis) {
            return spans.size() - over(thresholdMillis).size();
        }
    }

    private LockServerOracle() {
    }

    static Analysis analyze(Path trace) {
        List<Span> spans = new ArrayList<>();
        Map<NodeId, List<String>> stuck = new TreeMap<>();
        long[] serverClock = {0};
        long[] size = {0};
        long[] since = {0};
        long[] openedAt = {-1};
        long[] enoughTime = {0};
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (!event.startedHandler()) {
                        return;
                    }
                    NodeId node = event.entry().node();
                    if (node.equals(SERVER)) {
                        serverClock[0] = event.entry().atMillis();
                    } else {
                        state.node(node).ifPresent(client -> stuck.put(node, stuckRevokes(node, client)));
                    }
                    long now = state.node(SERVER).map(LockServerOracle::pendingSize).orElse(0);
                    if (now != size[0]) {
                        size[0] = now;
                        since[0] = serverClock[0];
                    }
                    if (now > 0) {
                        enoughTime[0] = serverClock[0] - since[0];
                        if (openedAt[0] < 0) {
                            openedAt[0] = position;
                        }
                    } else if (openedAt[0] >= 0) {
                        spans.add(new Span(openedAt[0], Optional.of(position), enoughTime[0]));
                        openedAt[0] = -1;
                    }
                }));
        if (!result.divergences().isEmpty()) {
            throw new AssertionError("replay of " + trace + " diverged: " + result.divergences().getFirst().describe());
        }
        if (openedAt[0] >= 0) {
            spans.add(new Span(openedAt[0], Optional.empty(), enoughTime[0]));
        }
        return new Analysis(List.copyOf(spans), stuck.values().stream().flatMap(List::stream).toList(),
                result.entries());
    }

    private static int pendingSize(Node node) {
        Object role = read(node, "role");
        return role == null ? 0 : ((LockServer) role).pendingSize();
    }

    /** The client's revokes held up by a pending release of the same lock, as {@code c3 lock 1 (41 denied)}. */
    private static List<String> stuckRevokes(NodeId id, Node node) {
        Object client = read(node, "role");
        if (client == null) {
            return List.of();
        }
        List<String> stuck = new ArrayList<>();
        Map<?, ?> locks = (Map<?, ?>) read(client, "locks");
        for (Object lock : locks.values()) {
            if ((boolean) read(lock, "revokePending") && (boolean) read(lock, "releasePending")) {
                stuck.add(id + " lock " + read(lock, "lock") + " (" + read(lock, "releaseDenials") + " denied)");
            }
        }
        return stuck;
    }

    static Object read(Object object, String fieldName) {
        try {
            Field field = object.getClass().getDeclaredField(fieldName);
            field.setAccessible(true);
            return field.get(object);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + object.getClass().getName() + "." + fieldName, e);
        }
    }
}
