package dev.deja.check.internal;

import dev.deja.check.StateStep;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs the side that makes state steps (a replay with state extraction, or a read of the stored history) on its
 * own thread while the calling thread evaluates them, so that on two cores the predicates' cost overlaps the
 * replay's instead of adding to it.
 *
 * <p>Contract: the consumer sees every step the producer emitted, in emission order, on the calling thread; the
 * producer runs on one other thread, started and joined inside {@link #run}, so whatever either side did before
 * is visible to the other after it returns (thread start and join order them). When the consumer throws, the
 * producer is stopped at its next emitted step and {@link #run} rethrows the consumer's exception after joining
 * it; when the producer throws, the steps emitted before are consumed and then its exception is rethrown on the
 * calling thread. At most {@value #BATCHES_IN_FLIGHT} batches of {@value #BATCH_SIZE} steps are held in between.
 */
public final class StepPipeline {
    static final int BATCH_SIZE = 128;
    static final int BATCHES_IN_FLIGHT = 32;

    private StepPipeline() {
    }

    /** The producer's outcome, sent after its last batch. */
    private sealed interface End permits Returned, Threw {
    }

    private record Returned(Object value) implements End {
    }

    private record Threw(Throwable failure) implements End {
    }

    /** Thrown inside the producer when the consumer has stopped; unwinds it without being reported. */
    private static final class Cancelled extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Cancelled() {
            super(null, null, false, false);
        }
    }

    /**
     * Runs {@code producer} on a thread named {@code threadName}, feeding the steps it passes to its sink to
     * {@code consumer} here, and returns what the producer returned.
     */
    public static <R> R run(String threadName, Function<Consumer<StateStep>, R> producer, Consumer<StateStep> consumer) {
        return runBatches(threadName, producer, batch -> batch.forEach(consumer));
    }

    /**
     * Like {@link #run}, handing {@code consumer} the steps a batch at a time (at most {@value #BATCH_SIZE}, in
     * emission order), so that it can evaluate many with one call.
     */
    @SuppressWarnings("unchecked")
    public static <R> R runBatches(String threadName, Function<Consumer<StateStep>, R> producer,
                                   Consumer<List<StateStep>> consumer) {
        BlockingQueue<Object> queue = new ArrayBlockingQueue<>(BATCHES_IN_FLIGHT);
        Producer<R> side = new Producer<>(queue, producer);
        Thread thread = Thread.ofPlatform().name(threadName).daemon().unstarted(side);
        thread.start();
        try {
            while (true) {
                Object item = queue.take();
                if (item instanceof End end) {
                    join(thread);
                    return switch (end) {
                        case Returned returned -> (R) returned.value();
                        case Threw threw -> throw rethrowable(threw.failure());
                    };
                }
                consumer.accept((List<StateStep>) item);
            }
        } catch (InterruptedException e) {
            side.cancelled = true;
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking", e);
        } catch (RuntimeException | Error e) {
            side.cancelled = true;
            queue.clear();
            join(thread);
            throw e;
        }
    }

    /** Waits for {@code thread} to end, keeping an interrupt of the waiting thread for later. */
    static void join(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code failure} as is when unchecked (an Error is thrown here), else wrapped. */
    static RuntimeException rethrowable(Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(failure.getMessage(), failure);
    }

    private static final class Producer<R> implements Runnable {
        private final BlockingQueue<Object> queue;
        private final Function<Consumer<StateStep>, R> body;
        private List<StateStep> batch = new ArrayList<>(BATCH_SIZE);
        volatile boolean cancelled;

        Producer(BlockingQueue<Object> queue, Function<Consumer<StateStep>, R> body) {
            this.queue = queue;
            this.body = body;
        }

        @Override
        public void run() {
            End end;
            try {
                R value = body.apply(this::emit);
                flush();
                end = new Returned(value);
            } catch (Cancelled cancelled) {
                return;
            } catch (Throwable failure) {
                try {
                    flush();
                } catch (Cancelled cancelled) {
                    return;
                }
                end = new Threw(failure);
            }
            try {
                hand(end);
            } catch (Cancelled cancelled) {
                // The consumer stopped meanwhile and no longer waits for the end.
            }
        }

        private void emit(StateStep step) {
            batch.add(step);
            if (batch.size() == BATCH_SIZE) {
                flush();
            }
        }

        private void flush() {
            if (!batch.isEmpty()) {
                hand(batch);
                batch = new ArrayList<>(BATCH_SIZE);
            }
        }

        /** Puts {@code item} in the queue, giving up (by throwing {@link Cancelled}) once the consumer stopped. */
        private void hand(Object item) {
            try {
                while (!queue.offer(item, 50, TimeUnit.MILLISECONDS)) {
                    if (cancelled) {
                        throw new Cancelled();
                    }
                }
            } catch (InterruptedException e) {
                throw new Cancelled();
            }
            if (cancelled) {
                throw new Cancelled();
            }
        }
    }
}
