package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLog;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Payload;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deja dump} over a real trace, compared with golden files. */
class DumpCommandIT {
    /** A message type for the golden trace. */
    public record Collect(long round, List<String> notes) {
    }

    @TempDir
    Path trace;

    private void writeTrace() {
        MessageCodec codec = MessageCodec.defaultCodec();
        NodeId n1 = new NodeId("n1");
        Payload collect = codec.encode(new Collect(3, List.of("a", "b")));
        List<Event> events = List.of(
                new Event.Start("com.example.PaxosNode", Map.of("bug", "spec"), List.of(new NodeId("n2"))),
                new Event.StorageRead("accepted", null),
                new Event.RandomDraw(-7),
                new Event.Send(new NodeId("n2"), (1L << 40) | 1, collect.type(), MessageCodec.digest(collect)),
                new Event.Receive(new NodeId("n2"), 9, (1L << 40) | 4, collect),
                new Event.ClockRead(1_700_000_000_500L),
                new Event.TimerFired(2, codec.encode("round")),
                new Event.StorageRead("accepted", new byte[] {1, 2}),
                new Event.Crash(1));
        try (NodeLogWriter writer = NodeLogWriter.open(trace, n1, "com.example.PaxosNode", "1.0", 1, 1_700_000_000_000L)) {
            long lamport = 0;
            for (Event event : events) {
                lamport = event instanceof Event.Receive ? 10 + lamport : lamport + 1;
                writer.append(new TraceEvent(n1, 1, writer.nextSeq(), lamport, 1_700_000_000_000L + writer.nextSeq(), event));
            }
            writer.close(1_700_000_001_000L);
        }
    }

    @Test
    void dumpJson_matchesTheGoldenFile() throws Exception {
        writeTrace();
        CliRun.Output output = CliRun.run("dump", trace.toString(), "--json");
        assertThat(output.err()).isEmpty();
        assertThat(output.status()).isZero();
        assertThat(output.out()).isEqualTo(CliRun.golden("dump.jsonl", output.out()));
    }

    @Test
    void dumpText_matchesTheGoldenFile() throws Exception {
        writeTrace();
        CliRun.Output output = CliRun.run("dump", trace.toString(), "--node", "n1");
        assertThat(output.status()).isZero();
        assertThat(output.out()).isEqualTo(CliRun.golden("dump.txt", output.out()));
    }

    @Test
    void dump_ofACorruptedEntry_printsOneClearErrorWithoutAStackTrace() throws Exception {
        writeTrace();
        NodeLog log = NodeLog.open(Trace.nodeDirectory(trace, new NodeId("n1")));
        Path file;
        long offset;
        try (NodeLog.Cursor cursor = log.cursor()) {
            cursor.next();
            cursor.next();
            file = cursor.file();
            offset = cursor.byteOffset();
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(offset + 5);
            int b = raf.read();
            raf.seek(offset + 5);
            raf.write(b ^ 0x40);
        }
        CliRun.Output output = CliRun.run("dump", trace.toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).startsWith("deja dump: " + file + ": node n1, entry 1 (incarnation 1), byte offset "
                + offset + ": corrupted entry: checksum mismatch").doesNotContain("\tat ");
        assertThat(output.out()).contains("seq 0 ").doesNotContain("seq 1 ");
    }

    @Test
    void dump_ofAMissingNode_namesTheRecordedNodes() {
        writeTrace();
        CliRun.Output output = CliRun.run("dump", trace.toString(), "--node", "n9");
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).contains("no log of node n9 (recorded nodes: n1)");
    }
}
