package dev.deja.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.testing.BulkNode;
import dev.deja.replay.testing.InProcessCluster;
import dev.deja.replay.testing.ReplayChild;
import dev.deja.runtime.Deployment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replay streams: a trace several times larger than the replaying JVM's heap replays completely, without
 * running out of memory (issue: "a trace several times larger than the heap replays with bounded memory").
 */
class LargeTraceIT {
    private static final int HEAP_MIB = 64;
    private static final int HOPS = 1200; // 1200 × 256 KiB received payloads ≈ 300 MiB of trace

    @TempDir
    Path temporary;

    @Test
    void replay_ofATraceFourTimesTheHeap_completesWithoutDivergence() throws Exception {
        Path trace = temporary.resolve("trace");
        new InProcessCluster(trace, Map.<NodeId, Class<? extends Node>>of(new NodeId("n1"), BulkNode.class,
                new NodeId("n2"), BulkNode.class), 1).run(HOPS);
        long traceBytes = sizeOf(trace);
        assertThat(traceBytes).as("trace bytes").isGreaterThan(4L * HEAP_MIB * 1024 * 1024);

        List<String> command = Deployment.childJavaCommand(List.of("-Xmx" + HEAP_MIB + "m"),
                System.getProperty("java.class.path"), ReplayChild.class.getName(), List.of(trace.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(5, TimeUnit.MINUTES)).isTrue();
        System.out.printf("LargeTraceIT: %d MiB trace replayed with a %d MiB heap: %s%n", traceBytes >> 20, HEAP_MIB,
                output.strip());
        assertThat(child.exitValue()).as("replay child exit; its output:%n%s", output).isZero();
        Matcher summary = Pattern.compile("entries (\\d+) divergences (\\d+) maxHeapMiB (\\d+)").matcher(output);
        assertThat(summary.find()).as("the child's summary line in%n%s", output).isTrue();
        assertThat(Long.parseLong(summary.group(1))).as("entries replayed (at least one receive per hop)").isGreaterThanOrEqualTo(HOPS);
        assertThat(Integer.parseInt(summary.group(2))).as("divergences").isZero();
        assertThat(Long.parseLong(summary.group(3))).as("the child's max heap, MiB").isLessThanOrEqualTo(HEAP_MIB);
    }

    private static long sizeOf(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
