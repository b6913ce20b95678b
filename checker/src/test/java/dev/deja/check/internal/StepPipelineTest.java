package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.StateStep;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StepPipelineTest {
    private static StateStep step(long position) {
        return new StateStep(new CheckedEvent(position, new NodeId("n1"), 1, position, position, position, "timer",
                Optional.empty(), Optional.empty()), List.of());
    }

    @Test
    void run_deliversEveryStepInOrderOnTheCallingThread_andReturnsTheProducersValue() {
        int count = StepPipeline.BATCH_SIZE * StepPipeline.BATCHES_IN_FLIGHT * 3 + 7;
        List<Long> seen = new ArrayList<>();
        List<Thread> consumerThreads = new ArrayList<>();
        String result = StepPipeline.run("test-producer", sink -> {
            for (long i = 0; i < count; i++) {
                sink.accept(step(i));
            }
            return "done by " + Thread.currentThread().getName();
        }, step -> {
            seen.add(step.event().position());
            if (consumerThreads.isEmpty()) {
                consumerThreads.add(Thread.currentThread());
            }
        });
        assertThat(result).isEqualTo("done by test-producer");
        assertThat(consumerThreads).containsExactly(Thread.currentThread());
        assertThat(seen).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(seen.get(i)).isEqualTo(i);
        }
    }

    @Test
    void run_whenTheConsumerThrows_stopsTheProducerAndRethrows() {
        AtomicLong produced = new AtomicLong();
        assertThatThrownBy(() -> StepPipeline.run("test-producer", sink -> {
            for (long i = 0; i < 10_000_000; i++) {
                sink.accept(step(i));
                produced.incrementAndGet();
            }
            return null;
        }, step -> {
            if (step.event().position() == 500) {
                throw new IllegalStateException("consumer gave up at 500");
            }
        })).isInstanceOf(IllegalStateException.class).hasMessage("consumer gave up at 500");
        // The producer was joined, and stopped long before the end: at most the queue's capacity past the failure.
        long afterReturn = produced.get();
        assertThat(afterReturn).isLessThan(500 + (StepPipeline.BATCHES_IN_FLIGHT + 2L) * StepPipeline.BATCH_SIZE);
        assertThat(produced.get()).isEqualTo(afterReturn);
    }

    @Test
    void run_whenTheProducerThrows_consumesTheStepsBeforeAndRethrowsItsException() {
        List<Long> seen = new ArrayList<>();
        assertThatThrownBy(() -> StepPipeline.run("test-producer", sink -> {
            for (long i = 0; i < 300; i++) {
                sink.accept(step(i));
            }
            throw new IllegalArgumentException("bad trace entry after 300");
        }, step -> seen.add(step.event().position())))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("bad trace entry after 300");
        assertThat(seen).hasSize(300).startsWith(0L, 1L).endsWith(299L);
    }
}
