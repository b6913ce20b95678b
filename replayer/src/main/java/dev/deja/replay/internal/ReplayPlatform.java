package dev.deja.replay.internal;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.Platform;
import dev.deja.trace.Event;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The platform a replayed node runs on: inputs come from the node's recorded entries, effects go nowhere,
 * and every entry the runner records is compared with the recording.
 */
final class ReplayPlatform implements Platform, TraceSink {
    /** Records that a node's replay differs from its recording; the replay of that node stops there. */
    @FunctionalInterface
    interface Divergences {
        void diverge(ReplayEngine.NodeState state, long seq, long lamport, String expected, String actual);
    }

    private final ReplayEngine.NodeState state;
    private final Divergences divergences;
    private final Consumer<String> nodeOutput;

    ReplayPlatform(ReplayEngine.NodeState state, Divergences divergences, Consumer<String> nodeOutput) {
        this.state = state;
        this.divergences = divergences;
        this.nodeOutput = nodeOutput;
    }

    /**
     * The next recorded entry, which must be of {@code kind}. Abandons the handler quietly when the
     * recording ends here because the incarnation was killed mid-handler, and with a divergence otherwise.
     */
    private TraceEvent expect(Class<? extends Event> kind, String doing) {
        TraceEvent next = state.expectedAt(state.nextSeq);
        if (endsIncarnation(next)) {
            if (killedHere(next)) {
                state.cutShort = true;
                throw new ReplayEngine.Stop();
            }
            divergences.diverge(state, state.nextSeq, state.lastLamport, ReplayEngine.describe(next), doing);
            throw new ReplayEngine.Stop();
        }
        if (!kind.isInstance(next.event())) {
            divergences.diverge(state, next.seq(), next.lamport(), ReplayEngine.describe(next), doing);
            throw new ReplayEngine.Stop();
        }
        return next;
    }

    private boolean endsIncarnation(TraceEvent next) {
        return next == null || next.incarnation() != state.runner.incarnation();
    }

    /** Whether the recording of the current incarnation stops here because the process was killed. */
    private boolean killedHere(TraceEvent next) {
        return next == null ? !state.stream.lastIncarnationCompleted() : next.event() instanceof Event.Crash;
    }

    @Override
    public void append(TraceEvent produced) {
        if (produced.seq() != state.nextSeq) {
            throw new IllegalStateException("replay of " + produced.node() + " produced seq " + produced.seq()
                    + " where " + state.nextSeq + " was due");
        }
        TraceEvent recorded = state.expectedAt(produced.seq());
        boolean ownDispatch = state.dispatch != null && produced.seq() == state.dispatch.seq();
        if (!ownDispatch && endsIncarnation(recorded)) {
            if (killedHere(recorded)) {
                state.cutShort = true;
                throw new ReplayEngine.Stop();
            }
            divergences.diverge(state, produced.seq(), state.lastLamport, ReplayEngine.describe(recorded),
                    "node did " + ReplayEngine.describe(produced));
            throw new ReplayEngine.Stop();
        }
        if (!sameEntry(recorded, produced)) {
            divergences.diverge(state, recorded.seq(), recorded.lamport(), ReplayEngine.describe(recorded),
                    ReplayEngine.describe(produced));
            throw new ReplayEngine.Stop();
        }
        state.matched(recorded);
    }

    private static boolean sameEntry(TraceEvent recorded, TraceEvent produced) {
        if (recorded.incarnation() != produced.incarnation() || recorded.lamport() != produced.lamport()) {
            return false;
        }
        if (recorded.event() instanceof Event.Send a && produced.event() instanceof Event.Send b) {
            // The message id is derived from the same counter, but the content is what matters to the receiver.
            return a.to().equals(b.to()) && a.messageType().equals(b.messageType()) && a.digest() == b.digest();
        }
        return recorded.event().equals(produced.event());
    }

    @Override
    public long currentTimeMillis() {
        if (state.dispatchClockPending) {
            // NodeRunner reads the clock once per dispatch to stamp the entries; the recording has it.
            state.dispatchClockPending = false;
            return state.dispatch.atMillis();
        }
        return ((Event.ClockRead) expect(Event.ClockRead.class, "node read the clock where the log has none")
                .event()).millis();
    }

    @Override
    public long nextRandomLong() {
        return ((Event.RandomDraw) expect(Event.RandomDraw.class,
                "node consumed a random draw the log does not have at this point").event()).value();
    }

    @Override
    public Optional<byte[]> storageRead(String key) {
        TraceEvent next = expect(Event.StorageRead.class, "node read storage key " + key
                + " where the log has no storage read");
        Event.StorageRead read = (Event.StorageRead) next.event();
        if (!read.key().equals(key)) {
            divergences.diverge(state, next.seq(), next.lamport(), ReplayEngine.describe(next),
                    "node read storage key " + key);
            throw new ReplayEngine.Stop();
        }
        return Optional.ofNullable(read.value()).map(byte[]::clone);
    }

    @Override
    public void storageWrite(String key, byte[] value) {
        // Reads come from the log, so writes need not be kept.
    }

    @Override
    public void storageSync() {
    }

    @Override
    public void transmit(NodeId to, long senderLamport, long messageId, Payload message) {
        // Not delivered: the receiver's log holds the message and says when it arrived.
    }

    @Override
    public boolean knows(NodeId node) {
        return true;
    }

    @Override
    public void scheduleTimer(TimerId timer, Duration delay) {
        // The log says when (and whether) the timer fired.
    }

    @Override
    public void cancelTimer(TimerId timer) {
    }

    @Override
    public void log(NodeId node, int incarnation, String line) {
        nodeOutput.accept(node + "#" + incarnation + ": " + line);
    }
}
