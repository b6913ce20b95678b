package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import dev.deja.testing.TraceEvents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening of recording: a node whose disk fills up stops recording with a one-line message, and what it wrote
 * stays readable. The disk is a real 1 MB tmpfs, mounted for the test; where mounting is not permitted (not root, a
 * container without the capability) the test is skipped, saying so.
 */
class DiskFullHardeningIT {
    private static final NodeId N1 = new NodeId("n1");

    @TempDir
    Path directory;
    private Path mountPoint;

    @BeforeEach
    void mountSmallTmpfs() throws Exception {
        mountPoint = Files.createDirectories(directory.resolve("small-disk"));
        int status;
        try {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.toString())
                    .redirectErrorStream(true).start();
            mount.getInputStream().readAllBytes();
            status = mount.waitFor(60, TimeUnit.SECONDS) ? mount.exitValue() : -1;
        } catch (IOException noMountCommand) {
            status = -1;
        }
        if (status != 0) {
            mountPoint = null;
        }
        Assumptions.assumeTrue(mountPoint != null, "mount -t tmpfs is not permitted here: the full-disk test is skipped");
    }

    @AfterEach
    void unmount() throws Exception {
        // Lazily: the JVM may still map the queue files until they are garbage-collected.
        if (mountPoint != null) {
            new ProcessBuilder("umount", "--lazy", mountPoint.toString()).inheritIO().start().waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void fullDisk_stopsRecordingWithOneLine_andKeepsWhatWasWrittenReadable() {
        Path trace = mountPoint.resolve("trace");
        List<TraceEvent> written = new ArrayList<>();
        NodeLogWriter writer = NodeLogWriter.open(trace, N1, "test.Node", "1.0", 1, 100,
                InstantSource.fixed(Instant.ofEpochMilli(1_700_000_000_000L)));
        TraceWriteException failure = null;
        for (long seq = 0; seq < 1_000_000 && failure == null; seq++) {
            TraceEvent template = TraceEvents.pseudoRandom(N1, 7, seq);
            TraceEvent event = new TraceEvent(N1, writer.incarnation(), writer.nextSeq(), template.lamport(),
                    template.atMillis(), template.event());
            try {
                writer.append(event);
                written.add(event);
            } catch (TraceWriteException e) {
                failure = e;
            }
        }
        assertThat(failure).as("1 MB fills up").isNotNull();
        assertThat(failure.getMessage()).doesNotContain("\n")
                .startsWith(trace.resolve("nodes").resolve("n1").resolve("log-1") + ": node n1, incarnation 1: recording"
                        + " stopped at seq " + written.size() + ": ")
                .endsWith("; the entries written before stay readable");
        TraceWriteException first = failure;
        TraceEvent next = new TraceEvent(N1, 1, written.size(), written.size() * 2L + 1, 0, new Event.RandomDraw(1));
        assertThatThrownBy(() -> writer.append(next)).as("a failed log stays failed").isSameAs(first);
        writer.close();
        System.out.println("DiskFullHardeningIT: " + written.size() + " entries written before the 1 MB disk was full: "
                + failure.getMessage());

        List<TraceEvent> read = new ArrayList<>();
        try (NodeLog.Cursor cursor = Trace.open(trace).node(N1).cursor()) {
            cursor.forEachRemaining(read::add);
        }
        assertThat(read).as("every entry appended before the failure").isEqualTo(written);
    }
}
