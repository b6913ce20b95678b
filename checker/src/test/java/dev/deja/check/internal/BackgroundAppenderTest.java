package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.StateHistory;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class BackgroundAppenderTest {
    /** A history that only takes appends. */
    private record AppendOnly(Consumer<StateStep> onAppend) implements StateHistory {
        @Override
        public void beginCheck(List<TableSchema> schemas) {
        }

        @Override
        public void append(StateStep step) {
            onAppend.accept(step);
        }

        @Override
        public void recordViolation(Violation violation) {
        }

        @Override
        public void replaceViolations(List<Violation> violations) {
        }

        @Override
        public void finishCheck() {
        }

        @Override
        public boolean hasCompleteHistory(List<TableSchema> schemas) {
            return false;
        }

        @Override
        public long replayHistory(long fromPosition, Consumer<StateStep> consumer) {
            return 0;
        }

        @Override
        public Optional<List<Violation>> lastViolations() {
            return Optional.empty();
        }

        @Override
        public void close() {
        }
    }

    private static StateStep step(long position) {
        return new StateStep(new CheckedEvent(position, new NodeId("n1"), 1, position, position, position, "timer",
                Optional.empty(), Optional.empty()), List.of());
    }

    @Test
    void finish_writesEveryStepInOrderOnTheWriterThread() {
        List<Long> written = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        InMemoryStateHistory stored = new InMemoryStateHistory();
        stored.beginCheck(List.of(new TableSchema("T", "x.T", List.of("a"))));
        StateHistory history = new AppendOnly(step -> {
            stored.append(step); // refuses steps out of order
            written.add(step.event().position());
            if (threads.isEmpty()) {
                threads.add(Thread.currentThread().getName());
            }
        });
        int count = BackgroundAppender.BATCH_SIZE * (BackgroundAppender.BATCHES_IN_FLIGHT + 5) + 3;
        try (BackgroundAppender appender = new BackgroundAppender(history, "test-writer")) {
            for (long i = 0; i < count; i++) {
                appender.append(step(i));
            }
            appender.finish();
        }
        assertThat(threads).containsExactly("test-writer");
        assertThat(written).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(written.get(i)).isEqualTo(i);
        }
    }

    @Test
    void aFailingHistory_isRethrownToTheAppendingSide() {
        StateHistory history = new AppendOnly(step -> {
            if (step.event().position() == 300) {
                throw new IllegalStateException("disk full at 300");
            }
        });
        assertThatThrownBy(() -> {
            try (BackgroundAppender appender = new BackgroundAppender(history, "test-writer")) {
                for (long i = 0; i < 1_000_000; i++) {
                    appender.append(step(i));
                }
                appender.finish();
            }
        }).isInstanceOf(IllegalStateException.class).hasMessage("disk full at 300");
    }

    @Test
    void theFirstAction_runsOnTheWriterThreadBeforeAnyStep_andItsFailureIsRethrown() {
        List<String> seen = new ArrayList<>();
        StateHistory history = new AppendOnly(step -> seen.add("step " + step.event().position()));
        try (BackgroundAppender appender = new BackgroundAppender(history, "test-writer",
                started -> seen.add("first on " + Thread.currentThread().getName()))) {
            appender.append(step(0));
            appender.finish();
        }
        assertThat(seen).containsExactly("first on test-writer", "step 0");

        assertThatThrownBy(() -> {
            try (BackgroundAppender appender = new BackgroundAppender(history, "test-writer", started -> {
                throw new IllegalArgumentException("table name 'events' is reserved");
            })) {
                for (long i = 0; i < 1_000_000; i++) {
                    appender.append(step(i));
                }
                appender.finish();
            }
        }).isInstanceOf(IllegalArgumentException.class).hasMessage("table name 'events' is reserved");
    }
}
