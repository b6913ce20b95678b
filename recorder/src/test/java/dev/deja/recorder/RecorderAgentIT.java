package dev.deja.recorder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.Deployment;
import dev.deja.testing.GossipNode;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Switching recording on from outside an unmodified node program: the agent, and its absence. */
class RecorderAgentIT {
    @TempDir
    Path temporary;

    @Test
    void javaagent_recordsAnUnmodifiedNodeProgram() throws Exception {
        Path jar = recorderJar();
        Path trace = temporary.resolve("trace");
        runTwoNodes(List.of("-javaagent:" + jar + "=" + trace));
        Trace opened = Trace.open(trace);
        assertThat(opened.nodes()).extracting(log -> log.node().value()).containsExactly("n1", "n2");
        for (NodeLog log : opened.nodes()) {
            assertThat(log.manifest().completed()).isTrue();
            try (NodeLog.Cursor cursor = log.cursor()) {
                long count = 0;
                while (cursor.hasNext()) {
                    cursor.next();
                    count++;
                }
                assertThat(count).as("events of %s", log.node()).isGreaterThan(10);
            }
        }
    }

    @Test
    void withoutAgentOrProperty_nothingIsRecorded() throws Exception {
        Path work = runTwoNodes(List.of());
        try (Stream<Path> files = Files.walk(work)) {
            assertThat(files.filter(p -> p.toString().endsWith(".cq4") || p.endsWith(NodeLog.MANIFEST))).isEmpty();
        }
    }

    private Path runTwoNodes(List<String> recordingFlags) throws Exception {
        Path work = Files.createDirectories(temporary.resolve("work-" + recordingFlags.size()));
        Map<NodeId, ClusterSpec.Member> nodes = new LinkedHashMap<>();
        for (String id : List.of("n1", "n2")) {
            nodes.put(new NodeId(id), new ClusterSpec.Member("127.0.0.1:" + Deployment.freeLoopbackPort(), GossipNode.class.getName(), Map.of()));
        }
        Path clusterFile = work.resolve("cluster.json");
        new ClusterSpec(nodes, Map.of(), null).write(clusterFile);
        List<Process> processes = new ArrayList<>();
        for (String id : List.of("n1", "n2")) {
            List<String> command = Deployment.childJavaCommand(recordingFlags, System.getProperty("java.class.path"),
                    NodeMain.class.getName(), List.of("--cluster", clusterFile.toString(), "--node", id, "--storage",
                            work.resolve(id).toString()));
            processes.add(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(work.resolve(id + ".log").toFile()).start());
        }
        // Wait until both nodes have exchanged messages for a while, however slow the machine is.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (String id : List.of("n1", "n2")) {
            Path output = work.resolve(id + ".log");
            while (!Files.readString(output).contains("received 10 pongs")) {
                assertThat(System.nanoTime()).as("%s printed 'received 10 pongs' within 90 s; its output:%n%s", id,
                        Files.readString(output)).isLessThan(deadline);
                Thread.sleep(50);
            }
        }
        for (Process process : processes) {
            process.destroy(); // SIGTERM: a clean stop completes the recording
        }
        for (Process process : processes) {
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        return work;
    }

    private static Path recorderJar() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            return files.filter(p -> p.getFileName().toString().matches("deja-recorder-.*\\.jar"))
                    .filter(p -> !p.getFileName().toString().contains("sources"))
                    .findFirst().orElseThrow(() -> new AssertionError("the recorder jar is not built yet")).toAbsolutePath();
        }
    }

}
