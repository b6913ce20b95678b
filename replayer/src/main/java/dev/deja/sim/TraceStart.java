package dev.deja.sim;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceOrder;
import dev.deja.replay.internal.HappensBeforeMerge;
import dev.deja.replay.internal.NodeStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where a simulated run starts when it continues a recorded run instead of booting every node afresh: the state right
 * after the merged entry at {@code position} of the recording (numbered as {@code deja check} and {@code deja view}
 * number entries; -1 for the state before the first entry), rebuilt by replaying the recording up to there.
 *
 * <p>Every node that started by then continues with the object replay rebuilt, its pending timers (due when the
 * recording set them to be) and its storage as far as the replay saw it (what it wrote, and what it read back); every
 * message a replayed node sent and nobody had received by then is handed to the simulated network again, which draws
 * its delay, loss and duplication as for any other send; nodes that had not started boot when the simulation begins.
 * The workload driver and other unrecorded clients do not continue: messages to them are lost. A handler call that
 * began at or before the position is replayed whole. The replayed handler calls count as the run's first steps, and
 * a {@link StepObserver} sees each of them ({@link StepObserver#replayedStep}) before the first simulated step.
 *
 * <p>The recording is read once, into memory, by {@link #of}; every run rebuilds the state from it again (a run
 * mutates the node objects), so runs stay independent. Immutable; may be shared by threads.
 *
 * @param position  the merged entry after which the run continues, or -1 to continue from nothing replayed
 * @param recording the recorded trace, held in memory
 */
public record TraceStart(long position, Recording recording) {
    public TraceStart {
        Objects.requireNonNull(recording, "recording");
        if (position < -1 || position >= recording.entries()) {
            throw new IllegalArgumentException(recording.directory() + ": position " + position + " is out of range: the "
                    + "trace has " + recording.entries() + " entries (positions 0 to " + (recording.entries() - 1) + ")");
        }
    }

    /** Reads {@code trace}; fails naming the trace when it is not one or {@code position} is out of range. */
    public static TraceStart of(Path trace, long position) {
        return new TraceStart(position, Recording.read(trace));
    }

    /** The same recording continued after its first {@code handlerCalls} handler calls (0: before any). */
    public TraceStart afterHandlerCalls(long handlerCalls) {
        return new TraceStart(recording.positionAfterHandlerCalls(handlerCalls), recording);
    }

    /** The recording's directory. */
    public Path trace() {
        return recording.directory();
    }

    /** How many handler calls the rebuilt state has run: the number of steps a run from here starts at. */
    public long handlerCalls() {
        return recording.handlerCallsThrough(position);
    }

    /**
     * A recorded trace read into memory: every node's entries in log order, and where each handler call begins in the
     * merged order (the simulator's order when the trace records one, else Lamport clock, node, seq).
     */
    public static final class Recording {
        private final Path directory;
        private final Map<NodeId, List<TraceEvent>> logs;
        private final Map<NodeId, Boolean> lastIncarnationCompleted;
        private final long entries;
        /** The merged position of the entry that begins each handler call, in order. */
        private final long[] handlerStarts;

        /** The simulator's order of the recording, or null (merged by Lamport clock). */
        private final TraceOrder order;

        private Recording(Path directory, Map<NodeId, List<TraceEvent>> logs, Map<NodeId, Boolean> completed,
                          TraceOrder order) {
            this.directory = directory;
            this.logs = logs;
            this.lastIncarnationCompleted = completed;
            this.order = order;
            List<TraceEvent> merged = new ArrayList<>();
            try (HappensBeforeMerge merge = new HappensBeforeMerge(directory.toString(), streams(), orderCursor())) {
                merge.forEachRemaining(merged::add);
            }
            this.entries = merged.size();
            long[] starts = new long[merged.size()];
            int count = 0;
            Map<NodeId, TraceEvent> previous = new TreeMap<>();
            for (int i = 0; i < merged.size(); i++) {
                TraceEvent entry = merged.get(i);
                TraceEvent before = previous.put(entry.node(), entry);
                boolean begins = switch (entry.event()) {
                    case Event.Receive r -> true;
                    case Event.TimerFired t -> true;
                    case Event.Crash c -> true;
                    // A start right after a crash entry belongs to the same handler call.
                    case Event.Start s -> before == null || !(before.event() instanceof Event.Crash);
                    default -> false;
                };
                if (begins) {
                    starts[count++] = i;
                }
            }
            this.handlerStarts = java.util.Arrays.copyOf(starts, count);
        }

        /** Reads every node log of {@code trace} into memory. */
        public static Recording read(Path trace) {
            Trace opened = Trace.open(trace);
            Map<NodeId, List<TraceEvent>> logs = new TreeMap<>();
            Map<NodeId, Boolean> completed = new TreeMap<>();
            for (NodeLog log : opened.nodes()) {
                List<TraceEvent> entries = new ArrayList<>();
                try (NodeLog.Cursor cursor = log.cursor()) {
                    cursor.forEachRemaining(entries::add);
                }
                logs.put(log.node(), List.copyOf(entries));
                completed.put(log.node(), log.manifest().incarnations().getLast().completed());
            }
            return new Recording(trace, java.util.Collections.unmodifiableMap(logs),
                    java.util.Collections.unmodifiableMap(completed), opened.order().orElse(null));
        }

        /** Every log as a stream for a merge. */
        public List<NodeStream> streams() {
            List<NodeStream> streams = new ArrayList<>();
            logs.forEach((node, entries) -> streams.add(NodeStream.of(node, Trace.nodeDirectory(directory, node).toString(),
                    entries, lastIncarnationCompleted(node))));
            return streams;
        }

        /** A new cursor over the simulator's order of the recording, or null when it has none (Lamport merge). */
        public TraceOrder.Cursor orderCursor() {
            return order == null ? null : order.cursor(logs.keySet());
        }

        public Path directory() {
            return directory;
        }

        /** Every recorded node's entries, in log order, by node id. */
        public Map<NodeId, List<TraceEvent>> logs() {
            return logs;
        }

        /** Whether the node's last incarnation ended cleanly (else its log may stop inside a handler call). */
        public boolean lastIncarnationCompleted(NodeId node) {
            return lastIncarnationCompleted.get(node);
        }

        /** Entries in all logs. */
        public long entries() {
            return entries;
        }

        /** Handler calls in the whole recording. */
        public long handlerCalls() {
            return handlerStarts.length;
        }

        /** The handler calls begun at or before merged position {@code position}. */
        public long handlerCallsThrough(long position) {
            int index = java.util.Arrays.binarySearch(handlerStarts, position);
            return index >= 0 ? index + 1 : -index - 1;
        }

        /** The merged position of the entry that begins handler call {@code calls - 1} (-1 for 0 calls). */
        public long positionAfterHandlerCalls(long calls) {
            if (calls < 0 || calls > handlerStarts.length) {
                throw new IllegalArgumentException(directory + ": " + calls + " handler calls asked, the trace has "
                        + handlerStarts.length);
            }
            return calls == 0 ? -1 : handlerStarts[(int) calls - 1];
        }

        /** The merged position of the entry that begins handler call {@code index} (0-based). */
        public long handlerStart(long index) {
            return handlerStarts[Math.toIntExact(index)];
        }
    }
}
