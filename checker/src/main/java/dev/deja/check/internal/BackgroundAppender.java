package dev.deja.check.internal;

import dev.deja.check.StateHistory;
import dev.deja.check.StateStep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Appends steps to a {@link StateHistory} on a thread of its own, so that storing the history overlaps the
 * replay and the predicates instead of adding to the replay's thread.
 *
 * <p>Contract: {@link #append} is called by one thread; the history is touched only by the writer thread between
 * construction and {@link #finish} or {@link #close} (which join it), so the caller may use the history again
 * afterwards. A failure of the history is rethrown by the next {@link #append} or by {@link #finish}. At most
 * {@value #BATCHES_IN_FLIGHT} batches of {@value #BATCH_SIZE} steps wait for the writer.
 */
public final class BackgroundAppender implements AutoCloseable {
    static final int BATCH_SIZE = 128;
    static final int BATCHES_IN_FLIGHT = 32;
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(BATCHES_IN_FLIGHT);
    private final Thread writer;
    private List<StateStep> batch = new ArrayList<>(BATCH_SIZE);
    private volatile Throwable failure;
    private volatile boolean abandoned;
    private boolean ended;

    /** Starts the writer thread for {@code history}. */
    public BackgroundAppender(StateHistory history, String threadName) {
        this(history, threadName, ignored -> { });
    }

    /**
     * Starts the writer thread for {@code history}, which first runs {@code first} on it (such as {@link
     * StateHistory#beginCheck}, so that preparing the history overlaps the start of the replay); its failure is
     * rethrown like a failed append.
     */
    public BackgroundAppender(StateHistory history, String threadName, Consumer<StateHistory> first) {
        writer = Thread.ofPlatform().name(threadName).daemon().unstarted(() -> write(history, first));
        writer.start();
    }

    @SuppressWarnings("unchecked")
    private void write(StateHistory history, Consumer<StateHistory> first) {
        try {
            first.accept(history);
            while (true) {
                Object item = queue.take();
                if (item == END) {
                    return;
                }
                if (!abandoned && failure == null) {
                    for (StateStep step : (List<StateStep>) item) {
                        history.append(step);
                    }
                }
            }
        } catch (Throwable e) {
            failure = e;
            // Keep draining so that the appending thread never blocks on a full queue.
            while (true) {
                try {
                    if (queue.take() == END) {
                        return;
                    }
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** Queues {@code step} for the history. */
    public void append(StateStep step) {
        rethrowFailure();
        batch.add(step);
        if (batch.size() == BATCH_SIZE) {
            hand(batch);
            batch = new ArrayList<>(BATCH_SIZE);
        }
    }

    /** Writes what is queued, stops the writer and rethrows its failure, if any. */
    public void finish() {
        if (!batch.isEmpty()) {
            hand(batch);
            batch = new ArrayList<>();
        }
        end();
        rethrowFailure();
    }

    /** Stops the writer; steps not yet written by then are dropped (the check stopped early or failed). */
    @Override
    public void close() {
        abandoned = true;
        queue.clear();
        end();
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        hand(END);
        StepPipeline.join(writer);
    }

    private void hand(Object item) {
        try {
            while (!queue.offer(item, 50, TimeUnit.MILLISECONDS)) {
                if (!writer.isAlive()) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while storing the check history", e);
        }
    }

    private void rethrowFailure() {
        Throwable e = failure;
        if (e != null) {
            throw StepPipeline.rethrowable(e);
        }
    }
}
