package dev.deja.check.internal;

import dev.deja.check.CheckedEvent;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.nio.file.Path;
import java.util.List;

/**
 * A check's replay with state extraction, started before the script is loaded when the tables it declares can be
 * told beforehand, so that the replay runs while Python starts (about a second in a new JVM) instead of after it.
 *
 * <p>Which tables a script declares is known only once Python has run it; the replay starts from {@code expected}
 * (the stored outline of this script text, or {@link DeclaredTables#guess}) and {@link #take} hands it over only
 * if loading the script declared exactly those. Otherwise it is stopped and the check replays as it would have
 * without it: a wrong guess costs the steps replayed meanwhile (at most the pipeline's bound), never a result.
 * Nothing is written anywhere before it is taken: the steps wait in the pipeline, and the check stores them as it
 * evaluates them.
 *
 * <p>Threading: created, taken and closed by the checking thread; the replay runs on a thread of its own.
 */
public final class ReplayAhead implements AutoCloseable {
    private final List<TableSchema> expected;
    private final StateExtractor extractor;
    private StepPipeline.Started<ReplayResult> started;

    private ReplayAhead(List<TableSchema> expected, StateExtractor extractor, StepPipeline.Started<ReplayResult> started) {
        this.expected = expected;
        this.extractor = extractor;
        this.started = started;
    }

    /**
     * Starts replaying {@code trace} with extraction for {@code expected}, or returns null when that cannot start
     * (a class the tables name is missing, the trace cannot be opened): the check then meets the same problem where
     * it would have without this, after loading the script, and reports it there.
     */
    public static ReplayAhead start(Path trace, List<TableSchema> expected, ClassLoader classLoader, long untilPosition) {
        StateExtractor extractor;
        Trace opened;
        try {
            extractor = new StateExtractor(expected, classLoader);
            opened = Trace.open(trace);
        } catch (RuntimeException e) {
            return null;
        }
        return new ReplayAhead(expected, extractor, replay(opened, extractor, classLoader, untilPosition));
    }

    /**
     * Starts replaying {@code trace} on a thread of its own, handing each step that begins a handler, with the rows
     * {@code extractor} takes from its node, to the returned pipeline.
     */
    public static StepPipeline.Started<ReplayResult> replay(Trace trace, StateExtractor extractor, ClassLoader classLoader,
                                                            long untilPosition) {
        return StepPipeline.start("deja-check-replay", sink -> Replayer.replay(trace, Replayer.Options.defaults()
                .withClassLoader(classLoader)
                .withUntilPosition(untilPosition)
                .withListener((event, position, state) -> {
                    if (!event.startedHandler()) {
                        return;
                    }
                    TraceEvent entry = event.entry();
                    sink.accept(new StateStep(CheckedEvent.of(entry, position),
                            extractor.extract(entry.node(), state.node(entry.node()).orElse(null))));
                })));
    }

    /**
     * The running replay if the script declared exactly the expected tables (the caller then owns it), else null,
     * having stopped it.
     */
    public StepPipeline.Started<ReplayResult> take(List<TableSchema> declared) {
        StepPipeline.Started<ReplayResult> taken = started;
        started = null;
        if (taken != null && !declared.equals(expected)) {
            taken.close();
            return null;
        }
        return taken;
    }

    /** The extractor the replay uses (that of the expected tables). */
    public StateExtractor extractor() {
        return extractor;
    }

    /** Stops the replay unless it was taken. */
    @Override
    public void close() {
        if (started != null) {
            started.close();
            started = null;
        }
    }
}
