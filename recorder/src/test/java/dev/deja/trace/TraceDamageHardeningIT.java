package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening of trace reading: every class of damage to a node's log is either named on one line (file, node, what
 * is wrong) or leaves every entry readable exactly as written. Never a stack trace, never a node or entries silently
 * left out.
 */
class TraceDamageHardeningIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final int PAGE = 4096;

    @TempDir
    Path trace;
    private List<TraceEvent> written;
    private Path dataFile;
    private byte[] original;

    /** A small log of n1 (a 1 MB block, as the simulator writes) beside n2's, listed in a trace.json. */
    @BeforeEach
    void writeSmallTrace() throws IOException {
        written = new ArrayList<>();
        InstantSource clock = InstantSource.fixed(Instant.ofEpochMilli(1_700_000_000_000L));
        for (NodeId node : List.of(N1, N2)) {
            try (NodeLogWriter writer = NodeLogWriter.open(trace, node, "test.Node", "1.0", 1, 100, clock)) {
                for (int round = 0; round < 3; round++) {
                    for (TraceEvent template : TraceEvents.oneOfEachType(node)) {
                        TraceEvent event = new TraceEvent(node, writer.incarnation(), writer.nextSeq(), template.lamport(),
                                template.atMillis(), template.event());
                        writer.append(event);
                        if (node.equals(N1)) {
                            written.add(event);
                        }
                    }
                }
            }
        }
        Trace.writeSummary(trace, new TraceSummary(TraceEncoding.FORMAT_VERSION, "simulate", "test", List.of("n1", "n2"),
                0, 1, Map.of(), List.of(), Map.of()));
        Path queue = Trace.nodeDirectory(trace, N1).resolve("log-1");
        try (Stream<Path> files = Files.list(queue)) {
            dataFile = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        original = Files.readAllBytes(dataFile);
    }

    /** Reads n1's whole log as every command does (opening the trace first). */
    private List<TraceEvent> readN1() {
        List<TraceEvent> read = new ArrayList<>();
        try (NodeLog.Cursor cursor = Trace.open(trace).node(N1).cursor()) {
            cursor.forEachRemaining(read::add);
        }
        return read;
    }

    /**
     * The outcome of reading n1 now: "intact" if every entry reads back as written, else the one-line message; any
     * other outcome (fewer or other entries without an error, another exception, a message of several lines, one not
     * naming the file and node) fails the test.
     */
    private String outcome(String damage) {
        try {
            List<TraceEvent> read = readN1();
            assertThat(read).as(damage + ": read without an error, so every entry must be as written").isEqualTo(written);
            return "intact";
        } catch (TraceFormatException e) {
            assertThat(e.getMessage()).as(damage).doesNotContain("\n").contains("node n1")
                    .contains(Trace.nodeDirectory(trace, N1).toString());
            return e.getMessage();
        }
    }

    private List<Integer> nonZeroPages() {
        List<Integer> pages = new ArrayList<>();
        for (int page = 0; page * PAGE < original.length; page++) {
            for (int i = page * PAGE; i < Math.min(original.length, (page + 1) * PAGE); i++) {
                if (original[i] != 0) {
                    pages.add(page);
                    break;
                }
            }
        }
        return pages;
    }

    /** The end of the last non-zero byte: where the written data ends. */
    private int dataEnd() {
        int end = original.length;
        while (end > 0 && original[end - 1] == 0) {
            end--;
        }
        return end;
    }

    private void restore() throws IOException {
        Files.write(dataFile, original);
    }

    private void flip(long offset) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(dataFile.toFile(), "rw")) {
            file.seek(offset);
            int b = file.read();
            file.seek(offset);
            file.write(b ^ 0xFF);
        }
    }

    @Test
    void intactLog_readsBackExactly() {
        assertThat(outcome("none")).isEqualTo("intact");
    }

    @Test
    void truncationAtEvery4KBoundary_isNamedOrLosesNothing() throws IOException {
        int named = 0;
        int lossless = 0;
        // From the longest to the shortest, shortening the same file each time.
        for (long size = (original.length - 1) / PAGE * PAGE; size >= 0; size -= PAGE) {
            try (FileChannel channel = FileChannel.open(dataFile, StandardOpenOption.WRITE)) {
                channel.truncate(size);
            }
            String outcome = outcome("truncated to " + size + " bytes");
            if (outcome.equals("intact")) {
                lossless++;
                assertThat(size).as("only a truncation after the data can lose nothing").isGreaterThanOrEqualTo(dataEnd());
            } else {
                named++;
                assertThat(outcome).contains(dataFile.toString());
            }
        }
        System.out.println("TraceDamageHardeningIT: " + (named + lossless) + " truncations: " + named + " named, "
                + lossless + " after the data (nothing lost)");
        assertThat(named).as("every truncation inside the data").isGreaterThanOrEqualTo((dataEnd() + PAGE - 1) / PAGE);
    }

    @Test
    void truncationBeforeTheFirstEntry_isNamed() throws IOException {
        try (FileChannel channel = FileChannel.open(dataFile, StandardOpenOption.WRITE)) {
            channel.truncate(2);
        }
        assertThat(outcome("2 bytes left")).isEqualTo(dataFile + ": node n1, incarnation 1: the queue file is truncated"
                + " inside its header (2 bytes)");
    }

    @Test
    void zeroedPages_areNamed() throws IOException {
        for (int page : nonZeroPages()) {
            restore();
            try (RandomAccessFile file = new RandomAccessFile(dataFile.toFile(), "rw")) {
                file.seek((long) page * PAGE);
                file.write(new byte[Math.min(PAGE, original.length - page * PAGE)]);
            }
            assertThat(outcome("page " + page + " zeroed")).as("page " + page).isNotEqualTo("intact").contains(dataFile.toString());
        }
    }

    @Test
    void zeroedHeader_isNamed() throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(dataFile.toFile(), "rw")) {
            file.write(new byte[PAGE]);
        }
        assertThat(outcome("header zeroed")).isEqualTo(dataFile + ": node n1, incarnation 1: the queue file's header is"
                + " zeroed (no header at byte offset 0; " + original.length + " bytes)");
    }

    @Test
    void flipInTheHeader_isNamedOrHarmless() throws IOException {
        int named = 0;
        int headerEnd = 4 + (original[0] & 0xFF); // the header document's length is in its first byte here
        for (int offset = 0; offset < headerEnd; offset++) {
            restore();
            flip(offset);
            if (!outcome("header byte " + offset + " flipped").equals("intact")) {
                named++;
            }
        }
        System.out.println("TraceDamageHardeningIT: " + headerEnd + " header flips: " + named + " named, "
                + (headerEnd - named) + " harmless");
        assertThat(named).isPositive();
    }

    @Test
    void flipInTheIndex_isNamedOrHarmless() throws IOException {
        List<Integer> pages = nonZeroPages();
        // The pages between the header's and the data's hold the index.
        int named = 0;
        int flips = 0;
        for (int page : pages.subList(1, pages.size() - 1)) {
            for (int i = page * PAGE; i < (page + 1) * PAGE; i++) {
                if (original[i] != 0) {
                    restore();
                    flip(i);
                    flips++;
                    if (!outcome("index byte " + i + " flipped").equals("intact")) {
                        named++;
                    }
                }
            }
        }
        System.out.println("TraceDamageHardeningIT: " + flips + " index flips: " + named + " named, " + (flips - named) + " harmless");
        assertThat(flips).isPositive();
    }

    @Test
    void flipInTheData_isNamedOrHarmless() throws IOException {
        int dataStart = nonZeroPages().getLast() * PAGE;
        int flips = 0;
        int named = 0;
        for (int offset = dataStart; offset < dataEnd(); offset += 7) {
            restore();
            flip(offset);
            flips++;
            if (!outcome("data byte " + offset + " flipped").equals("intact")) {
                named++;
            }
        }
        // A flip in an entry is caught by its checksum (TraceFilesIT names each); one in Chronicle's framing may leave
        // every entry readable.
        System.out.println("TraceDamageHardeningIT: " + flips + " data flips: " + named + " named, " + (flips - named)
                + " harmless");
        assertThat(named).isGreaterThan(flips / 2);
    }

    @Test
    void emptyQueueFile_isNamed() throws IOException {
        Files.write(dataFile, new byte[0]);
        assertThat(outcome("empty")).isEqualTo(dataFile + ": node n1, incarnation 1: the queue file is empty (0 bytes)");
    }

    @Test
    void missingQueueDirectory_isNamed() throws IOException {
        Path queue = dataFile.getParent();
        try (Stream<Path> files = Files.list(queue)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(queue);
        assertThat(outcome("log-1 removed")).isEqualTo(queue + ": node n1, incarnation 1: the queue directory is missing"
                + " (the manifest records this incarnation as shut down cleanly)");
    }

    @Test
    void missingNode_listedInTraceJson_isNamed() throws IOException {
        Path n2 = Trace.nodeDirectory(trace, N2);
        try (Stream<Path> files = Files.walk(n2)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class)
                .hasMessage(n2 + ": node n2 is listed in trace.json but its log directory is missing (recorded nodes: n1)");
    }

    @Test
    void futureFormatVersion_inTraceJson_isRefused() throws IOException {
        Path summary = trace.resolve(TraceSummary.FILE);
        Files.writeString(summary, Files.readString(summary).replaceFirst("\"formatVersion\" : \\d+", "\"formatVersion\" : 99"));
        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(summary + ": the trace was recorded with format 99; this build reads formats ");
    }

    @Test
    void malformedTraceJson_isOneLine() throws IOException {
        Files.writeString(trace.resolve(TraceSummary.FILE), "{\"formatVersion\": 2, \"nodes\": [1, {]}");
        assertThatThrownBy(() -> Trace.open(trace)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(trace.resolve(TraceSummary.FILE) + ": malformed trace summary: ")
                .hasMessageNotContaining("\n");
    }
}
