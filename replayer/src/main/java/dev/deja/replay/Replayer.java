package dev.deja.replay;

import dev.deja.node.NodeId;
import dev.deja.replay.internal.HappensBeforeMerge;
import dev.deja.replay.internal.NodeStream;
import dev.deja.replay.internal.ReplayEngine;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Replays a recorded trace in this process, on the calling thread.
 *
 * <p>The per-node logs are merged into one total order that respects happens-before: the order a simulator ran
 * them in when the trace records it ({@link dev.deja.trace.TraceOrder}, checked against the logs as it is read),
 * else by (Lamport clock, node id, seq); streamed: memory does not grow with the length of the trace. Every recorded node is
 * re-instantiated from the class named in its {@code start} entry (a fresh instance per incarnation) and
 * driven through the same {@link dev.deja.runtime.NodeRunner} that recorded it: at each entry that began a
 * handler the replayer calls the handler again, feeds back the recorded clock reads, random draws and storage
 * reads, and compares every entry the node produces with the recorded one. Sends are not delivered (the
 * receiver's log holds the content) and timers are not scheduled (the log says when they fired). The first
 * difference in a node is a {@link Divergence}.
 *
 * <p>A replay fails with {@link ReplayException} when the trace breaks a happens-before rule, or when a node
 * that appears as a peer has no log (unless {@link Options#partial()}).
 */
public final class Replayer {
    private Replayer() {
    }

    /**
     * What to replay and how.
     *
     * @param onlyNodes     replay only these nodes (their receives work, since each node's own log holds their
     *                      content); the other logs are not read. Empty: every node
     * @param untilPosition stop after this many merged entries (not handler calls); {@link Long#MAX_VALUE} for all
     * @param keepGoing     report a divergence and go on with the other nodes (the diverged node is skipped from
     *                      then on) instead of stopping at the first one
     * @param partial       replay even when a peer's log is missing (messages from it are treated like messages
     *                      from an unrecorded client)
     * @param classLoader   loads node classes and message classes
     * @param listeners     called after every merged entry
     * @param nodeOutput    receives the lines nodes write with {@code Env.log} (prefixed with node and
     *                      incarnation); replay writes them again since they are not inputs
     */
    public record Options(Set<NodeId> onlyNodes, long untilPosition, boolean keepGoing, boolean partial,
                          ClassLoader classLoader, List<ReplayListener> listeners, Consumer<String> nodeOutput) {
        public Options {
            onlyNodes = Collections.unmodifiableSet(new TreeSet<>(onlyNodes));
            Objects.requireNonNull(classLoader, "classLoader");
            Objects.requireNonNull(nodeOutput, "nodeOutput");
            listeners = List.copyOf(listeners);
            if (untilPosition < 0) {
                throw new IllegalArgumentException("the position to stop at cannot be negative, was " + untilPosition);
            }
        }

        /** Everything, stopping at the first divergence, node classes from the thread's context class loader. */
        public static Options defaults() {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            return new Options(Set.of(), Long.MAX_VALUE, false, false,
                    loader != null ? loader : Replayer.class.getClassLoader(), List.of(), line -> { });
        }

        /** Replays only {@code node}. */
        public Options withOnlyNode(NodeId node) {
            return withOnlyNodes(Set.of(node));
        }

        /** Replays only {@code nodes}; an empty set means every node. */
        public Options withOnlyNodes(Collection<NodeId> nodes) {
            return new Options(Set.copyOf(nodes), untilPosition, keepGoing, partial, classLoader, listeners, nodeOutput);
        }

        public Options withUntilPosition(long position) {
            return new Options(onlyNodes, position, keepGoing, partial, classLoader, listeners, nodeOutput);
        }

        public Options withKeepGoing(boolean value) {
            return new Options(onlyNodes, untilPosition, value, partial, classLoader, listeners, nodeOutput);
        }

        public Options withPartial(boolean value) {
            return new Options(onlyNodes, untilPosition, keepGoing, value, classLoader, listeners, nodeOutput);
        }

        public Options withClassLoader(ClassLoader loader) {
            return new Options(onlyNodes, untilPosition, keepGoing, partial, loader, listeners, nodeOutput);
        }

        public Options withListener(ReplayListener listener) {
            List<ReplayListener> all = new ArrayList<>(listeners);
            all.add(listener);
            return new Options(onlyNodes, untilPosition, keepGoing, partial, classLoader, all, nodeOutput);
        }

        public Options withNodeOutput(Consumer<String> output) {
            return new Options(onlyNodes, untilPosition, keepGoing, partial, classLoader, listeners, output);
        }
    }

    /** Replays {@code trace} with {@code options}; see the class comment. */
    public static ReplayResult replay(Trace trace, Options options) {
        List<NodeLog> logs = options.onlyNodes().isEmpty() ? trace.nodes()
                : options.onlyNodes().stream().map(trace::node).toList();
        List<NodeStream> streams = new ArrayList<>();
        for (NodeLog log : logs) {
            streams.add(NodeStream.of(log));
        }
        return new ReplayEngine(trace.directory().toString(), streams, options, null,
                trace.order().isPresent() ? () -> HappensBeforeMerge.orderOf(trace) : null).run();
    }
}
