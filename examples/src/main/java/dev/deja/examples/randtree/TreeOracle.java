package dev.deja.examples.randtree;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replays a RandTree trace and finds where each safety property first broke, computed in Java from the replayed
 * nodes ({@link TreeViews#violated}) at every event that ran a handler, the events the checker evaluates. It is
 * independent of {@code scripts/randtree.py}, so tests hold the script's findings against it.
 */
public final class TreeOracle {
    private TreeOracle() {
    }

    /**
     * The position of the first event after which each property was broken, for the properties that broke.
     *
     * @throws IllegalStateException if the replay diverged (the trace does not match these classes)
     */
    public static Map<TreeViews.Property, Long> firstViolations(Path trace) {
        Map<TreeViews.Property, Long> first = new EnumMap<>(TreeViews.Property.class);
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (!event.startedHandler()) {
                        return;
                    }
                    Map<NodeId, TreeViews.View> views = new TreeMap<>();
                    for (Map.Entry<NodeId, Node> node : state.nodes().entrySet()) {
                        if (node.getValue() instanceof RandTreeNode tree) {
                            views.put(node.getKey(), TreeViews.View.of(tree));
                        }
                    }
                    for (TreeViews.Property property : TreeViews.violated(views)) {
                        first.putIfAbsent(property, position);
                    }
                }));
        if (!result.divergences().isEmpty()) {
            throw new IllegalStateException("the replay of " + trace + " diverged: "
                    + result.divergences().getFirst().describe());
        }
        return Collections.unmodifiableMap(first);
    }
}
