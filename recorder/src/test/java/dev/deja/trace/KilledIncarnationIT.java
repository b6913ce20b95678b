package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import dev.deja.trace.internal.Queues;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A node killed while Chronicle was still making its first queue (or that queue's first data file), then restarted:
 * the killed incarnation reads as one without entries, though a later incarnation follows it, and every reader (the
 * trace's checks on opening, the cursor, the entry count, the writer of the next incarnation) goes on to the later
 * incarnations' entries. The same leftovers in an incarnation that shut down cleanly are damage, named on one line.
 */
class KilledIncarnationIT {
    private static final NodeId NODE = new NodeId("n1");
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochMilli(1_700_000_000_000L));
    /** The simulator's block size: a data file Chronicle is making has this length before its header is written. */
    private static final int BLOCK_BYTES = 1 << 20;

    @TempDir
    Path trace;

    /** What a kill while Chronicle was making an incarnation's queue leaves in its queue directory. */
    enum Leftover {
        /** The data file is allocated, its header word only marked "not complete" (the CI failure of issue #26). */
        HEADER_NOT_COMPLETE,
        /** The data file exists and is empty. */
        EMPTY_DATA_FILE,
        /** The queue directory holds Chronicle's metadata file but no data file yet. */
        NO_DATA_FILE,
        /** The queue directory was made, nothing in it yet. */
        EMPTY_QUEUE_DIRECTORY,
        /** The queue directory was never made. */
        NO_QUEUE_DIRECTORY
    }

    @ParameterizedTest
    @EnumSource(Leftover.class)
    void restartAfterAKillWhileTheQueueWasMade_readsTheLaterIncarnations(Leftover leftover) throws IOException {
        try (NodeLogWriter first = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100, CLOCK)) {
            assertThat(first.incarnation()).isEqualTo(1);
            first.abandon(); // killed before any entry was written
        }
        Path log1 = Trace.nodeDirectory(trace, NODE).resolve("log-1");
        leave(leftover, log1);

        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter second = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200, CLOCK)) {
            assertThat(second.incarnation()).isEqualTo(2);
            assertThat(second.previousIncarnationCrashed()).isTrue();
            assertThat(second.nextSeq()).isZero();
            assertThat(second.lastLamportBefore()).isZero();
            appendRestart(second, 1, written);
            second.abandon(); // killed too, after its entries were written
        }
        // The writer of incarnation 3 reads incarnations 1 (no entries, neither the last nor completed) and 2.
        try (NodeLogWriter third = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 300, CLOCK)) {
            assertThat(third.incarnation()).isEqualTo(3);
            assertThat(third.previousIncarnationCrashed()).isTrue();
            assertThat(third.nextSeq()).isEqualTo(written.size());
            assertThat(third.lastLamportBefore()).isEqualTo(written.getLast().lamport());
            appendRestart(third, 2, written);
        }
        writeSummary();

        NodeLog log = Trace.open(trace).node(NODE);
        assertThat(log.manifest().incarnations()).extracting(NodeManifest.Incarnation::completed)
                .containsExactly(false, false, true);
        assertThat(log.entryCount()).isEqualTo(written.size());
        List<TraceEvent> read = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try (NodeLog.Cursor cursor = log.cursor()) {
            while (cursor.hasNext()) {
                read.add(cursor.next());
                files.add(cursor.file().getParent().getFileName());
            }
        }
        assertThat(read).isEqualTo(written);
        assertThat(read.getFirst().event()).isEqualTo(new Event.Crash(1));
        assertThat(files).containsOnly(Path.of("log-2"), Path.of("log-3"));
    }

    @ParameterizedTest
    @EnumSource(Leftover.class)
    void theSameLeftoverInACompletedIncarnation_isNamed(Leftover leftover) throws IOException {
        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter first = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100, CLOCK)) {
            appendRestart(first, 0, written);
        } // shut down cleanly
        try (NodeLogWriter second = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200, CLOCK)) {
            appendRestart(second, 0, written);
        }
        Path log1 = Trace.nodeDirectory(trace, NODE).resolve("log-1");
        Path dataFile = onlyDataFile(log1);
        leave(leftover, log1);
        writeSummary();

        String expected = switch (leftover) {
            case NO_QUEUE_DIRECTORY -> log1 + ": node n1, incarnation 1: the queue directory is missing (the manifest"
                    + " records this incarnation as shut down cleanly)";
            case HEADER_NOT_COMPLETE, EMPTY_DATA_FILE -> described(leftover, log1, dataFile);
            // No data file reads as no entries in any incarnation, but incarnation 2 starts after 3 entries.
            case NO_DATA_FILE, EMPTY_QUEUE_DIRECTORY -> described(leftover, log1, dataFile) + LOST_0_TO_2;
        };
        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class).hasMessage(expected);
        assertThatThrownBy(() -> NodeLog.open(Trace.nodeDirectory(trace, NODE))).hasMessage(expected);
    }

    /** A kill's leftover where the restart read entries (a header zeroed after the fact, a file deleted) is named. */
    @ParameterizedTest
    @EnumSource(Leftover.class)
    void theSameLeftoverInAKilledIncarnationThatHadEntries_isNamed(Leftover leftover) throws IOException {
        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter first = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100, CLOCK)) {
            appendRestart(first, 0, written);
            first.abandon();
        }
        try (NodeLogWriter second = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200, CLOCK)) {
            assertThat(second.nextSeq()).isEqualTo(3);
            appendRestart(second, 1, written);
        }
        Path log1 = Trace.nodeDirectory(trace, NODE).resolve("log-1");
        Path dataFile = onlyDataFile(log1);
        leave(leftover, log1);
        writeSummary();

        String expected = described(leftover, log1, dataFile) + LOST_0_TO_2;
        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class).hasMessage(expected);
        assertThatThrownBy(() -> NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 300, CLOCK))
                .hasMessage(expected);
    }

    private static final String LOST_0_TO_2 = ", but incarnation 2 starts at seq 3: this one held the entries from"
            + " seq 0 to 2";

    /** How the reader describes {@code leftover} in incarnation 1 of n1. */
    private static String described(Leftover leftover, Path log1, Path dataFile) {
        return switch (leftover) {
            case HEADER_NOT_COMPLETE -> dataFile + ": node n1, incarnation 1: the queue file's header is damaged (its"
                    + " first word 0x80000000 is no complete header of at most " + (BLOCK_BYTES - 4) + " bytes; "
                    + BLOCK_BYTES + " bytes)";
            case EMPTY_DATA_FILE -> dataFile + ": node n1, incarnation 1: the queue file is empty (0 bytes)";
            case NO_DATA_FILE, EMPTY_QUEUE_DIRECTORY -> log1 + ": node n1, incarnation 1: the queue directory holds no"
                    + " data file";
            case NO_QUEUE_DIRECTORY -> log1 + ": node n1, incarnation 1: the queue directory is missing";
        };
    }

    @Test
    void aKilledRestartedIncarnationWithACompleteButDamagedHeader_isNamed() throws IOException {
        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter first = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100, CLOCK)) {
            appendRestart(first, 0, written);
            first.abandon();
        }
        try (NodeLogWriter second = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200, CLOCK)) {
            appendRestart(second, 1, written);
        }
        Path dataFile = onlyDataFile(Trace.nodeDirectory(trace, NODE).resolve("log-1"));
        try (RandomAccessFile file = new RandomAccessFile(dataFile.toFile(), "rw")) {
            // A complete header word whose header holds only zeros: written, then overwritten. Not a kill's leftover.
            file.writeInt(Integer.reverseBytes(0x4000_0100));
            file.write(new byte[0x100]);
        }
        writeSummary();

        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(dataFile + ": node n1, incarnation 1: the queue file's header is damaged (")
                .hasMessageNotContaining("\n");
    }

    /** Appends what a restarted node records first (the crash of the previous incarnation, if any) and two more. */
    private static void appendRestart(NodeLogWriter writer, int crashedIncarnation, List<TraceEvent> written) {
        List<Event> events = new ArrayList<>();
        if (crashedIncarnation > 0) {
            events.add(new Event.Crash(crashedIncarnation));
        }
        for (TraceEvent template : TraceEvents.oneOfEachType(NODE).subList(0, 3)) {
            events.add(template.event());
        }
        long lamport = writer.lastLamportBefore();
        for (Event event : events) {
            TraceEvent entry = new TraceEvent(NODE, writer.incarnation(), writer.nextSeq(), ++lamport,
                    1_700_000_000_000L + writer.nextSeq(), event);
            writer.append(entry);
            written.add(entry);
        }
    }

    /** Leaves {@code queueDirectory} as a kill while Chronicle was making it would. */
    private static void leave(Leftover leftover, Path queueDirectory) throws IOException {
        Path dataFile = Files.isDirectory(queueDirectory) && hasDataFile(queueDirectory)
                ? onlyDataFile(queueDirectory) : Queues.cycleFile(queueDirectory, (int) (CLOCK.millis() / 86_400_000L));
        switch (leftover) {
            case HEADER_NOT_COMPLETE -> {
                Files.createDirectories(queueDirectory);
                try (RandomAccessFile file = new RandomAccessFile(dataFile.toFile(), "rw")) {
                    file.setLength(0);
                    file.setLength(BLOCK_BYTES);
                    file.writeInt(Integer.reverseBytes(0x8000_0000)); // little-endian, as Chronicle writes it
                }
            }
            case EMPTY_DATA_FILE -> {
                Files.createDirectories(queueDirectory);
                Files.write(dataFile, new byte[0]);
            }
            case NO_DATA_FILE -> {
                Files.createDirectories(queueDirectory);
                Files.deleteIfExists(dataFile);
            }
            case EMPTY_QUEUE_DIRECTORY -> {
                deleteAll(queueDirectory);
                Files.createDirectories(queueDirectory);
            }
            case NO_QUEUE_DIRECTORY -> deleteAll(queueDirectory);
        }
    }

    private static void deleteAll(Path directory) throws IOException {
        if (Files.exists(directory)) {
            try (Stream<Path> all = Files.walk(directory)) {
                for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    private static boolean hasDataFile(Path queueDirectory) throws IOException {
        try (Stream<Path> files = Files.list(queueDirectory)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".cq4"));
        }
    }

    private static Path onlyDataFile(Path queueDirectory) throws IOException {
        try (Stream<Path> files = Files.list(queueDirectory)) {
            List<Path> data = files.filter(f -> f.getFileName().toString().endsWith(".cq4")).toList();
            assertThat(data).as("data files of " + queueDirectory).hasSize(1);
            return data.getFirst();
        }
    }

    private void writeSummary() throws IOException {
        Trace.writeSummary(trace, new TraceSummary(TraceEncoding.FORMAT_VERSION, "simulate", "test", List.of("n1"),
                0, 1, Map.of(), List.of(), Map.of()));
    }
}
