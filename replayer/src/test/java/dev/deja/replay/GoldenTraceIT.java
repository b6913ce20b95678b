package dev.deja.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.internal.HappensBeforeMerge;
import dev.deja.replay.internal.NodeStream;
import dev.deja.replay.testing.InProcessCluster;
import dev.deja.replay.testing.PingNode;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Recorded traces checked in under {@code src/test/resources/golden-traces/NAME/trace} with their expected
 * merged order in {@code NAME/merged-order.txt}: the merge must give exactly that order, and the replay must
 * reproduce the recording. {@code -Ddeja.updateGolden=true} records the traces again (their queue files cut
 * to the part holding data, so the repository stays small) and rewrites the expected order.
 */
class GoldenTraceIT {
    private static final Path GOLDEN = Path.of("src/test/resources/golden-traces");

    @Test
    void merge_ofThePingTrace_givesTheGoldenOrder() throws IOException {
        Path directory = GOLDEN.resolve("ping-3");
        if (Boolean.getBoolean("deja.updateGolden")) {
            recordPingTrace(directory.resolve("trace"));
            Files.writeString(directory.resolve("merged-order.txt"), mergedOrder(directory.resolve("trace")));
        }
        assertThat(mergedOrder(directory.resolve("trace"))).isEqualTo(Files.readString(directory.resolve("merged-order.txt")));
    }

    @Test
    void replay_ofThePingTrace_reproducesTheRecordingInTheGoldenOrder() throws IOException {
        Path directory = GOLDEN.resolve("ping-3");
        List<String> replayed = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(directory.resolve("trace")), Replayer.Options.defaults()
                .withListener((event, position, state) -> replayed.add(line(event.entry()))));
        assertThat(result.divergences()).isEmpty();
        assertThat(String.join("\n", replayed) + "\n").isEqualTo(Files.readString(directory.resolve("merged-order.txt")));
    }

    private static String mergedOrder(Path trace) {
        List<NodeStream> streams = new ArrayList<>();
        for (NodeLog log : Trace.open(trace).nodes()) {
            streams.add(NodeStream.of(log));
        }
        StringBuilder order = new StringBuilder();
        try (HappensBeforeMerge merge = new HappensBeforeMerge(trace.toString(), streams, 1 << 10)) {
            merge.forEachRemaining(entry -> order.append(line(entry)).append('\n'));
        }
        return order.toString();
    }

    private static String line(TraceEvent entry) {
        return "lamport " + entry.lamport() + " " + entry.node() + " seq " + entry.seq() + " " + entry.event().typeName();
    }

    private static void recordPingTrace(Path trace) throws IOException {
        deleteRecursively(trace);
        Map<NodeId, Class<? extends Node>> nodes = new LinkedHashMap<>();
        for (String id : List.of("n1", "n2", "n3")) {
            nodes.put(new NodeId(id), PingNode.class);
        }
        new InProcessCluster(trace, nodes, 11).run(200);
        compactQueueFiles(trace);
    }

    /**
     * Cuts each queue file after its last block holding data: Chronicle preallocates tens of megabytes of zeros
     * per file, and a read-only reader does not need them.
     */
    private static void compactQueueFiles(Path trace) throws IOException {
        final int block = 64 * 1024;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(trace)) {
            files = walk.filter(p -> p.toString().endsWith(".cq4") || p.toString().endsWith(".cq4t")).toList();
        }
        for (Path file : files) {
            byte[] bytes = Files.readAllBytes(file);
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] == 0) {
                end--;
            }
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(Math.min(bytes.length, ((long) end + block) / block * block));
            }
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
