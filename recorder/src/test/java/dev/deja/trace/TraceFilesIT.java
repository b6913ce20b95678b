package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes real Chronicle queues and reads them back, intact, corrupted and from unknown format versions. */
class TraceFilesIT {
    private static final NodeId NODE = new NodeId("n1");

    @TempDir
    Path trace;

    private List<TraceEvent> writeOneOfEach() {
        List<TraceEvent> events = new ArrayList<>();
        try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100)) {
            for (TraceEvent template : TraceEvents.oneOfEachType(NODE)) {
                TraceEvent event = new TraceEvent(NODE, writer.incarnation(), writer.nextSeq(), template.lamport(),
                        template.atMillis(), template.event());
                writer.append(event);
                events.add(event);
            }
        }
        return events;
    }

    private static List<TraceEvent> readAll(NodeLog log) {
        List<TraceEvent> read = new ArrayList<>();
        try (NodeLog.Cursor cursor = log.cursor()) {
            cursor.forEachRemaining(read::add);
        }
        return read;
    }

    @Test
    void roundTrip_returnsEveryEventTypeAndCompletesTheManifest() {
        List<TraceEvent> written = writeOneOfEach();
        Trace opened = Trace.open(trace);
        assertThat(opened.nodes()).hasSize(1);
        NodeLog log = opened.node(NODE);
        assertThat(readAll(log)).isEqualTo(written);
        NodeManifest manifest = log.manifest();
        assertThat(manifest.completed()).isTrue();
        assertThat(manifest.nodeClass()).isEqualTo("test.Node");
        assertThat(manifest.incarnations()).singleElement().satisfies(i -> {
            assertThat(i.number()).isEqualTo(1);
            assertThat(i.completed()).isTrue();
        });
    }

    @Test
    void handlerCalls_areWrittenWhenTheyEndAndReadBackEntryByEntry() {
        List<TraceEvent> written = new ArrayList<>();
        try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100)) {
            List<TraceEvent> templates = TraceEvents.oneOfEachType(NODE);
            int[] callSizes = {1, 3, 4, 2, 1};
            int next = 0;
            for (int size : callSizes) {
                writer.beginHandler();
                for (int i = 0; i < size; i++) {
                    TraceEvent template = templates.get(next++);
                    TraceEvent event = new TraceEvent(NODE, writer.incarnation(), writer.nextSeq(), template.lamport(),
                            template.atMillis(), template.event());
                    writer.append(event);
                    written.add(event);
                }
                NodeLog duringCall = NodeLog.open(Trace.nodeDirectory(trace, NODE));
                assertThat(readAll(duringCall)).as("entries readable before the call ends")
                        .isEqualTo(written.subList(0, written.size() - size));
                writer.endHandler();
                assertThat(duringCall.entryCount()).isEqualTo(written.size());
            }
        }
        assertThat(readAll(NodeLog.open(Trace.nodeDirectory(trace, NODE)))).isEqualTo(written);
    }

    @Test
    void handlerCallsInAGroup_areWrittenTogetherWhenTheGroupEnds() {
        List<TraceEvent> written = new ArrayList<>();
        List<TraceEvent> templates = TraceEvents.oneOfEachType(NODE);
        try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100)) {
            NodeLog log = NodeLog.open(Trace.nodeDirectory(trace, NODE));
            int next = 0;
            for (int[] group : new int[][] {{2, 3}, {1}, {4, 1, 2}}) {
                int before = written.size();
                writer.beginGroup();
                for (int size : group) {
                    writer.beginHandler();
                    for (int i = 0; i < size; i++) {
                        TraceEvent template = templates.get(next++ % templates.size());
                        TraceEvent event = new TraceEvent(NODE, writer.incarnation(), writer.nextSeq(),
                                template.lamport(), template.atMillis(), template.event());
                        writer.append(event);
                        written.add(event);
                    }
                    writer.endHandler();
                    assertThat(readAll(log)).as("nothing of the group is written before it ends")
                            .isEqualTo(written.subList(0, before));
                }
                writer.endGroup();
                assertThat(readAll(log)).isEqualTo(written);
            }
        }
        assertThat(readAll(NodeLog.open(Trace.nodeDirectory(trace, NODE)))).isEqualTo(written);
    }

    @Test
    void flippedByteInsideAHandlerCall_namesThatEntry() throws Exception {
        try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 100)) {
            writer.beginHandler();
            for (TraceEvent template : TraceEvents.oneOfEachType(NODE)) {
                writer.append(new TraceEvent(NODE, writer.incarnation(), writer.nextSeq(), template.lamport(),
                        template.atMillis(), template.event()));
            }
            writer.endHandler();
        }
        NodeLog log = NodeLog.open(Trace.nodeDirectory(trace, NODE));
        long offset = flipAByteOfEntry(log, 5).offset();
        List<TraceEvent> before = new ArrayList<>();
        assertThatThrownBy(() -> {
            try (NodeLog.Cursor cursor = log.cursor()) {
                cursor.forEachRemaining(before::add);
            }
        }).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("entry 5")
                .hasMessageContaining("byte offset " + offset)
                .hasMessageContaining("checksum mismatch");
        assertThat(before).hasSize(5);
    }

    @Test
    void reopen_continuesSeqAndLamportInANewIncarnation() {
        List<TraceEvent> first = writeOneOfEach();
        try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200)) {
            assertThat(writer.incarnation()).isEqualTo(2);
            assertThat(writer.nextSeq()).isEqualTo(first.size());
            assertThat(writer.lastLamportBefore()).isEqualTo(first.getLast().lamport());
            assertThat(writer.previousIncarnationCrashed()).isFalse();
        }
        assertThat(NodeLog.open(Trace.nodeDirectory(trace, NODE)).manifest().incarnations()).hasSize(2);
    }

    @Test
    void flippedByte_failsWithFileNodeIndexAndOffset() throws Exception {
        writeOneOfEach();
        NodeLog log = NodeLog.open(Trace.nodeDirectory(trace, NODE));
        Flipped flipped = flipAByteOfEntry(log, 3);
        Path file = flipped.file();
        long offset = flipped.offset();
        assertThatThrownBy(() -> readAll(log))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("node n1")
                .hasMessageContaining("entry 3")
                .hasMessageContaining("byte offset " + offset)
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void unknownFormatVersion_isRefusedClearly() throws Exception {
        writeOneOfEach();
        Path manifest = Trace.nodeDirectory(trace, NODE).resolve(NodeLog.MANIFEST);
        Files.writeString(manifest, Files.readString(manifest).replace("\"formatVersion\" : 2", "\"formatVersion\" : 99"));
        assertThatThrownBy(() -> Trace.open(trace))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining(manifest.toString())
                .hasMessageContaining("recorded with format 99; this build reads formats 1 to 2");
    }

    @Test
    void aLogOfAnotherFormat_isNotContinued() throws Exception {
        writeOneOfEach();
        Path manifest = Trace.nodeDirectory(trace, NODE).resolve(NodeLog.MANIFEST);
        Files.writeString(manifest, Files.readString(manifest).replace("\"formatVersion\" : 2", "\"formatVersion\" : 1"));
        assertThatThrownBy(() -> NodeLogWriter.open(trace, NODE, "test.Node", "1.0", 1, 200))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("was recorded with format 1; this build records format 2 and cannot continue it");
    }

    @Test
    void missingNodeDirectory_isNamed() {
        writeOneOfEach();
        assertThatThrownBy(() -> Trace.open(trace).node(new NodeId("n7")))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("no log of node n7")
                .hasMessageContaining("recorded nodes: n1");
        assertThatThrownBy(() -> Trace.open(trace.resolve("nope")))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("does not exist");
    }

    @Test
    void readingATrace_neverModifiesIt() throws Exception {
        writeOneOfEach();
        List<String> before = snapshot();
        readAll(Trace.open(trace).node(NODE));
        assertThat(snapshot()).isEqualTo(before);
    }

    private List<String> snapshot() throws Exception {
        List<String> files = new ArrayList<>();
        try (var walk = Files.walk(trace)) {
            for (Path p : walk.sorted().toList()) {
                if (Files.isRegularFile(p)) {
                    files.add(trace.relativize(p) + " " + Files.size(p) + " " + Files.getLastModifiedTime(p) + " "
                            + java.util.Arrays.hashCode(Files.readAllBytes(p)));
                }
            }
        }
        return files;
    }

    private record Flipped(Path file, long offset) {
    }

    /** Flips one bit inside the entry at {@code index} (0-based); returns the entry's file and byte offset. */
    private static Flipped flipAByteOfEntry(NodeLog log, int index) throws IOException {
        Path file;
        long offset;
        try (NodeLog.Cursor cursor = log.cursor()) {
            for (int i = 0; i <= index; i++) {
                cursor.next();
            }
            file = cursor.file();
            offset = cursor.byteOffset();
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(offset + 6);
            int b = raf.read();
            raf.seek(offset + 6);
            raf.write(b ^ 0x01);
        }
        return new Flipped(file, offset);
    }
}
