package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.bench.BenchPlan;
import dev.deja.bench.Summary;
import dev.deja.bench.internal.kv.KvClient;
import dev.deja.bench.internal.kv.KvExample;
import dev.deja.bench.internal.logging.LoggingClasspath;
import dev.deja.bench.internal.logging.Slf4jLoggedKvReplica;
import dev.deja.examples.ExampleDeployment;
import dev.deja.runtime.Deployment;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Recording overhead: three loopback deployments of the three-replica key-value store run side by side, one
 * without recording, one recording, one writing the same events as JSON through SLF4J and Logback instead. All
 * three stay up for the whole benchmark (started once, so the node JVMs are equally warm); in each round the
 * client of each loads its cluster in turn for a slice of time while the other two sit idle, and the operations
 * completed during the slice give its throughput. Then the same rounds again with every client sending at one fixed
 * rate that all three clusters keep up with, which gives the node CPU time per operation below saturation.
 */
final class RecordingBenchmark {
    static final String OFF = "off";
    static final String ON = "recording";
    static final String LOGGED = "slf4j-json";
    private static final long DRAIN_TIMEOUT_MILLIS = 10_000;
    /**
     * Node JVMs get the JVM's full JIT, as a production node would: {@code deja deploy} stops at C1 for a quick
     * start, which makes everything the nodes do, recording included, several times slower.
     */
    static final List<String> NODE_JVM_FLAGS = List.of("-XX:TieredStopAtLevel=4");

    private final Workspace workspace;
    // The node processes started so far, for the shutdown hook (another thread).
    private final List<ProcessHandle> startedNodes = new java.util.concurrent.CopyOnWriteArrayList<>();

    RecordingBenchmark(Workspace workspace) {
        this.workspace = workspace;
    }

    /** One running cluster, its client, and its node processes (for their CPU time). */
    private record Cluster(String name, Deployment deployment, KvClient client, List<ProcessHandle> nodes) {
        /** CPU time the node processes used so far, in nanoseconds. */
        long nodeCpuNanos() {
            long total = 0;
            for (ProcessHandle node : nodes) {
                total += node.info().totalCpuDuration().map(java.time.Duration::toNanos).orElseThrow(() ->
                        new IllegalStateException("the CPU time of node process " + node.pid() + " is not available"));
            }
            return total;
        }
    }

    /** One slice of load: operations per second, and node CPU time per operation. */
    private record SliceResult(double opsPerSecond, double cpuMicrosPerOp) {
    }

    ObjectNode run() throws Exception {
        BenchPlan plan = workspace.plan();
        Progress progress = workspace.progress();
        Path trace = workspace.path("recording/trace");
        Path logs = workspace.path("recording/slf4j-logs");
        Files.createDirectories(logs);
        Map<String, Cluster> clusters = new LinkedHashMap<>();
        Map<String, List<Double>> samples;
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        Map<String, List<Double>> pacedCpu;
        Map<String, List<Double>> pacedOps = new LinkedHashMap<>();
        long pacedOpsPerSecond;
        // Ctrl-C during the rounds must not leave nine node JVMs running.
        Thread cleanup = new Thread(() -> startedNodes.forEach(ProcessHandle::destroy), "deja-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            clusters.put(OFF, start(OFF, ExampleDeployment.builder(KvExample.gated())));
            clusters.put(ON, start(ON, ExampleDeployment.builder(KvExample.gated()).record(trace)));
            clusters.put(LOGGED, start(LOGGED, ExampleDeployment.builder(
                    new KvExample(Slf4jLoggedKvReplica.class, KvClient.Gated.class))
                    .arg(Slf4jLoggedKvReplica.LOG_DIRECTORY_ARG, logs.toAbsolutePath().toString())
                    .classpath(LoggingClasspath.forNodes())));
            progress.say("recording: three key-value clusters up (3 replicas each, %d requests in flight);"
                    + " %d rounds of %d ms slices", KvClient.window(), plan.rounds(), plan.sliceMeasure().toMillis());
            for (Cluster cluster : clusters.values()) {
                load(cluster, plan.warmUp());
            }
            progress.say("recording: each cluster warmed up for %d ms", plan.warmUp().toMillis());
            Map<String, Interleaved.Side> sides = new LinkedHashMap<>();
            for (Cluster cluster : clusters.values()) {
                sides.put(cluster.name(), () -> {
                    SliceResult slice = slice(cluster, plan, 0);
                    cpu.computeIfAbsent(cluster.name(), n -> new ArrayList<>()).add(slice.cpuMicrosPerOp());
                    return slice.opsPerSecond();
                });
            }
            samples = Interleaved.run("recording (operations/s)", plan.rounds(), false, sides, progress);
            // The same clusters below their capacity: every one at the same fixed rate, so that each processes as many
            // operations a second and the CPU time per operation compares the work itself. At full speed a cluster
            // that does more per operation also completes fewer operations per wake-up of its threads, which can make
            // each operation dearer again; at one rate all three are equally busy.
            pacedOpsPerSecond = pace(Summary.of(samples.get(LOGGED)).median());
            Map<String, Interleaved.Side> pacedSides = new LinkedHashMap<>();
            for (Cluster cluster : clusters.values()) {
                pacedSides.put(cluster.name(), () -> {
                    SliceResult slice = slice(cluster, plan, pacedOpsPerSecond);
                    pacedOps.computeIfAbsent(cluster.name(), n -> new ArrayList<>()).add(slice.opsPerSecond());
                    return slice.cpuMicrosPerOp();
                });
            }
            pacedCpu = Interleaved.run("recording at " + pacedOpsPerSecond + " operations/s (node CPU us per operation)",
                    plan.rounds(), false, pacedSides, progress);
        } finally {
            for (Cluster cluster : clusters.values()) {
                cluster.deployment().stop();
            }
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
        workspace.recordedKvTrace(trace);

        ObjectNode result = Results.object();
        Summary off = Summary.of(samples.get(OFF));
        Summary overhead = Summary.ofRatios(samples.get(ON), samples.get(OFF)).map(ratio -> (1 - ratio) * 100);
        Results.fill(result, overhead);
        result.put("goal", "under 1% fewer operations/s with recording on");
        result.put("workload", "3-replica primary-backup key-value store on loopback TCP, one client keeping "
                + KvClient.window() + " requests in flight (4 puts : 1 get), slices of "
                + plan.sliceMeasure().toMillis() + " ms after " + plan.sliceRamp().toMillis() + " ms of load; node JVMs "
                + String.join(" ", NODE_JVM_FLAGS) + " (the full JIT, as in production)");
        result.put("rounds", plan.rounds());
        result.set("ops_per_s_off", Results.summary(off));
        result.set("ops_per_s_recording", Results.summary(Summary.of(samples.get(ON))));
        ObjectNode cpuNode = Results.summary(Summary.ofRatios(cpu.get(ON), cpu.get(OFF)).map(ratio -> (ratio - 1) * 100));
        cpuNode.put("unit", "% more CPU time of the node processes per operation with recording on");
        cpuNode.set("node_cpu_us_per_op_off", Results.summary(Summary.of(cpu.get(OFF))));
        cpuNode.set("node_cpu_us_per_op_recording", Results.summary(Summary.of(cpu.get(ON))));
        result.set("node_cpu_overhead_pct", cpuNode);
        long entries = countEntries(trace);
        result.put("recorded_entries", entries);

        ObjectNode logging = Results.object();
        Results.fill(logging, Summary.ofRatios(samples.get(LOGGED), samples.get(OFF)).map(ratio -> (1 - ratio) * 100));
        logging.set("ops_per_s", Results.summary(Summary.of(samples.get(LOGGED))));
        logging.set("node_cpu_overhead_pct", Results.summary(Summary.ofRatios(cpu.get(LOGGED), cpu.get(OFF))
                .map(ratio -> (ratio - 1) * 100)));
        long[] lines = jsonLines(logs);
        logging.put("logged_events", lines[0]);
        logging.put("log_bytes", lines[1]);
        logging.put("bytes_per_event", lines[0] == 0 ? 0 : Results.round((double) lines[1] / lines[0]));
        logging.put("setup", "SLF4J 2 + Logback 1.5 FileAppender (defaults: synchronous, flush per event) + "
                + "logstash-logback-encoder LogstashEncoder; one JSON object per start, receive, timer, send, "
                + "clock read, random draw and storage read, messages serialized by Jackson");
        result.set("slf4j_json_logging", logging);

        ObjectNode paced = Results.object();
        paced.put("ops_per_s", pacedOpsPerSecond);
        paced.put("unit", "% more CPU time of the node processes per operation than with recording off, every "
                + "cluster loaded at the same fixed rate");
        Results.fill(paced, Summary.ofRatios(pacedCpu.get(ON), pacedCpu.get(OFF)).map(ratio -> (ratio - 1) * 100));
        paced.set("slf4j_json_logging", Results.summary(Summary.ofRatios(pacedCpu.get(LOGGED), pacedCpu.get(OFF))
                .map(ratio -> (ratio - 1) * 100)));
        ObjectNode pacedPerOp = paced.putObject("node_cpu_us_per_op");
        ObjectNode achieved = paced.putObject("achieved_ops_per_s");
        for (String side : List.of(OFF, ON, LOGGED)) {
            pacedPerOp.set(side, Results.summary(Summary.of(pacedCpu.get(side))));
            achieved.set(side, Results.summary(Summary.of(pacedOps.get(side))));
        }
        result.set("fixed_rate_node_cpu_overhead_pct", paced);
        return result;
    }

    /**
     * The fixed rate for the paced rounds: four fifths of what the slowest cluster (the one logging JSON) managed at
     * full speed, rounded down to a thousand, so that all three keep up with it.
     */
    static long pace(double slowestOpsPerSecond) {
        return Math.max(1000, (long) (slowestOpsPerSecond * 0.8) / 1000 * 1000);
    }

    private Cluster start(String name, ExampleDeployment.Builder builder) throws IOException, InterruptedException {
        Path work = workspace.path("recording/" + name + "-work");
        Deployment deployment = new Deployment(builder.workDirectory(work).command("deja bench (" + name + ")")
                .nodeJvmFlags(NODE_JVM_FLAGS).build().plan(), new PrintStream(OutputStream.nullOutputStream()));
        deployment.start();
        try {
            KvClient client = (KvClient) deployment.driver().orElseThrow();
            String marker = work.toAbsolutePath().toString();
            List<ProcessHandle> nodes = ProcessHandle.current().children()
                    .filter(p -> commandLine(p).contains(marker)).toList();
            if (nodes.size() != KvExample.gated().defaultNodes()) {
                throw new IllegalStateException("found " + nodes.size() + " node processes of the " + name
                        + " cluster, not " + KvExample.gated().defaultNodes());
            }
            startedNodes.addAll(nodes);
            return new Cluster(name, deployment, client, nodes);
        } catch (RuntimeException e) {
            deployment.stop(); // not yet in the caller's list of clusters to stop
            throw e;
        }
    }

    /**
     * The full command line of a process from {@code /proc} (the JDK's {@link ProcessHandle.Info} cuts long ones
     * short, and a node's classpath is long), or its {@link ProcessHandle.Info#commandLine()} elsewhere.
     */
    private static String commandLine(ProcessHandle process) {
        Path file = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            if (Files.isReadable(file)) {
                return new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' ');
            }
        } catch (IOException e) {
            // the process ended: no match
            return "";
        }
        return process.info().commandLine().orElse("");
    }

    /**
     * Loads {@code cluster} for the ramp and the measured slice (as fast as it can go, or at {@code pacedOpsPerSecond}
     * if positive), then lets its requests in flight drain.
     */
    private static SliceResult slice(Cluster cluster, BenchPlan plan, long pacedOpsPerSecond) throws InterruptedException {
        KvClient client = cluster.client();
        if (pacedOpsPerSecond > 0) {
            client.resumeAt(pacedOpsPerSecond);
        } else {
            client.resume();
        }
        Thread.sleep(plan.sliceRamp());
        long before = client.completed();
        long cpuBefore = cluster.nodeCpuNanos();
        long startNanos = System.nanoTime();
        Thread.sleep(plan.sliceMeasure());
        long after = client.completed();
        long cpuAfter = cluster.nodeCpuNanos();
        long endNanos = System.nanoTime();
        drain(cluster);
        long operations = Math.max(1, after - before);
        return new SliceResult(operations / ((endNanos - startNanos) / 1e9), (cpuAfter - cpuBefore) / 1e3 / operations);
    }

    /** Loads {@code cluster} for {@code duration}, unmeasured. */
    private static void load(Cluster cluster, java.time.Duration duration) throws InterruptedException {
        cluster.client().resume();
        Thread.sleep(duration);
        drain(cluster);
    }

    /** Pauses the client and waits until every request in flight is answered. */
    private static void drain(Cluster cluster) throws InterruptedException {
        KvClient client = cluster.client();
        client.pause();
        long deadline = System.currentTimeMillis() + DRAIN_TIMEOUT_MILLIS;
        while (client.inFlight() > 0) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the " + cluster.name() + " cluster left " + client.inFlight()
                        + " requests unanswered for " + DRAIN_TIMEOUT_MILLIS / 1000 + " s (see the node logs under "
                        + "the work directory)");
            }
            Thread.sleep(2);
        }
    }

    private static long countEntries(Path trace) {
        long entries = 0;
        for (NodeLog log : Trace.open(trace).nodes()) {
            entries += log.entryCount();
        }
        return entries;
    }

    /** Lines and bytes of the JSON logs. */
    private static long[] jsonLines(Path logs) throws IOException {
        long lines = 0;
        long bytes = 0;
        try (Stream<Path> files = Files.list(logs)) {
            for (Path file : files.toList()) {
                bytes += Files.size(file);
                try (Stream<String> text = Files.lines(file)) {
                    lines += text.count();
                }
            }
        }
        return new long[] {lines, bytes};
    }
}
