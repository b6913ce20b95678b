package dev.deja.runtime;

import dev.deja.node.NodeId;
import dev.deja.recorder.NodeMain;
import dev.deja.recorder.Recording;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEncoding;
import dev.deja.trace.TraceSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs a cluster on loopback: one JVM process per node (recording to the trace directory), the workload
 * driver in this process, scheduled kills ({@code kill -9}) and restarts, then a clean stop of every node
 * and a {@code trace.json} summary.
 */
public final class Deployment {
    /** What to do to a node, and when (measured from the moment the workload starts). */
    public record NodeAction(Kind kind, NodeId node, Duration at) {
        public enum Kind { KILL, RESTART }

        public NodeAction {
            Objects.requireNonNull(kind);
            Objects.requireNonNull(node);
            if (at.isNegative()) {
                throw new IllegalArgumentException("a " + kind + " time cannot be negative");
            }
        }
    }

    /**
     * A deployment to run.
     *
     * @param cluster        the cluster; every node runs in its own process, the driver (a client) here
     * @param driver         the client in {@link ClusterSpec#clients()} that drives the workload, if any
     * @param traceDirectory where the nodes record; empty runs without recording
     * @param workDirectory  node storage and node output ({@code <node>.log}) go here
     * @param duration       how long the workload runs at most; it ends earlier when the driver is finished
     * @param actions        kills and restarts, besides those of the cluster's {@link FaultModel#scheduled()}
     * @param classpath      the classpath of the node processes
     * @param settings       recorded in {@code trace.json} for humans
     * @param nodeJvmFlags   extra flags for the node JVMs, after {@link #childJvmFlags()} (so they override them:
     *                       {@code -XX:TieredStopAtLevel=4} gives nodes the full JIT, as in production)
     * @param ports          whether the cluster's loopback ports were chosen free for this run, and so may be chosen
     *                       again when another process takes one before its node listens ({@link Ports})
     */
    public record Plan(ClusterSpec cluster, Optional<NodeId> driver, Optional<Path> traceDirectory, Path workDirectory,
                       Duration duration, List<NodeAction> actions, String classpath, Map<String, Object> settings,
                       String command, List<String> nodeJvmFlags, Ports ports) {
        /** Where a plan's ports come from. */
        public enum Ports {
            /** Given by the user (a cluster file): used as they are; a port in use fails the start, naming it. */
            FIXED,
            /**
             * Chosen free on loopback when the plan was made ({@link Deployment#freeLoopbackPort()}): a port is free
             * only until something binds it, and between the choice and the node's bind another process may take it
             * (an outgoing connection's ephemeral port, another test). The deployment then starts again on other
             * free ports, at most {@link Deployment#START_ATTEMPTS} times, saying so.
             */
            CHOSEN_FREE
        }

        public Plan {
            Objects.requireNonNull(ports, "ports");
            List<NodeAction> all = new ArrayList<>(actions);
            for (FaultModel.Scheduled scheduled : cluster.faults().scheduled()) {
                all.add(new NodeAction(scheduled.kind() == FaultModel.Scheduled.Kind.KILL ? NodeAction.Kind.KILL
                        : NodeAction.Kind.RESTART, scheduled.node(), Duration.ofMillis(scheduled.atMillis())));
            }
            actions = all.stream().distinct().sorted(Comparator.comparing(NodeAction::at)).toList();
            cluster.faults().requireNodes(java.util.Set.copyOf(cluster.allIds()));
            for (NodeAction action : actions) {
                if (!cluster.nodes().containsKey(action.node())) {
                    throw new IllegalArgumentException("cannot " + action.kind().name().toLowerCase() + " "
                            + action.node() + ": not a node of the cluster");
                }
            }
            nodeJvmFlags = List.copyOf(nodeJvmFlags);
        }

        /** A plan on the user's own ports ({@link Ports#FIXED}). */
        public Plan(ClusterSpec cluster, Optional<NodeId> driver, Optional<Path> traceDirectory, Path workDirectory,
                    Duration duration, List<NodeAction> actions, String classpath, Map<String, Object> settings,
                    String command, List<String> nodeJvmFlags) {
            this(cluster, driver, traceDirectory, workDirectory, duration, actions, classpath, settings, command,
                    nodeJvmFlags, Ports.FIXED);
        }

        /** A plan on the user's own ports whose node JVMs get only {@link #childJvmFlags()}. */
        public Plan(ClusterSpec cluster, Optional<NodeId> driver, Optional<Path> traceDirectory, Path workDirectory,
                    Duration duration, List<NodeAction> actions, String classpath, Map<String, Object> settings,
                    String command) {
            this(cluster, driver, traceDirectory, workDirectory, duration, actions, classpath, settings, command,
                    List.of());
        }

        /** This plan with {@code other} as its cluster (the same nodes, say, on other ports). */
        Plan withCluster(ClusterSpec other) {
            return new Plan(other, driver, traceDirectory, workDirectory, duration, actions, classpath, settings, command,
                    nodeJvmFlags, ports);
        }
    }

    /** How the run went. */
    public record Result(Duration elapsed, boolean driverFinished, List<TraceSummary.LauncherEvent> events) {
    }

    /** The least time the nodes get to start, on an idle machine with few nodes. */
    private static final Duration MINIMUM_START_TIMEOUT = Duration.ofSeconds(60);
    /** Start-up time allowed per node per fully used core: a node JVM needs a few seconds of CPU to listen. */
    private static final Duration START_TIME_PER_NODE = Duration.ofSeconds(10);
    /** The most a scaled limit grows to; a longer wait is better spent elsewhere (the demo simulates instead). */
    private static final Duration MAXIMUM_START_TIMEOUT = Duration.ofMinutes(10);

    /** How many times a deployment on ports chosen free starts its nodes before a port in use fails it. */
    public static final int START_ATTEMPTS = 3;

    /** The plan; its cluster changes only when a start on {@link Plan.Ports#CHOSEN_FREE} ports is tried again. */
    private Plan plan;
    private final PrintStream progress;
    /** Per node process, the length of its log when it was launched: what it printed since is this launch's. */
    private final Map<NodeId, Long> logStarts = new LinkedHashMap<>();
    private final Map<NodeId, Process> processes = new LinkedHashMap<>();
    private final List<TraceSummary.LauncherEvent> events = new ArrayList<>();
    private Path clusterFile;
    private Path workloadStartFile;
    private long startMillis;
    private long runStartNanos;
    /** Written by the thread that runs the deployment, read by any (progress): see {@link #nodesListening()}. */
    private volatile int listening;
    /** Set once {@link #runStartNanos} is; read by any thread. */
    private volatile boolean workloadStarted;
    private LiveNode driver;
    private Duration startTimeout;

    public Deployment(Plan plan, PrintStream progress) {
        this.plan = plan;
        this.progress = progress;
        this.startTimeout = startTimeoutFor(plan.cluster().nodes().size());
    }

    /**
     * How long {@code nodes} node processes get, all together, to listen, scaled to this machine: 10 s per node for
     * every time the load average exceeds the cores (JVMs starting at once share the CPU with everything else), at
     * least 60 s and at most 10 minutes.
     */
    public static Duration startTimeoutFor(int nodes) {
        int cores = Runtime.getRuntime().availableProcessors();
        double load = Math.max(0, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        double busy = Math.max(1.0, (load + nodes) / cores);
        long millis = Math.round(nodes * START_TIME_PER_NODE.toMillis() * busy);
        return Duration.ofMillis(Math.clamp(millis, MINIMUM_START_TIMEOUT.toMillis(), MAXIMUM_START_TIMEOUT.toMillis()));
    }

    /** Sets how long the nodes get, all together, to start listening (default: {@link #startTimeoutFor}). */
    public Deployment startTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the start-up time limit must be positive, was " + timeout);
        }
        this.startTimeout = timeout;
        return this;
    }

    /** How long the nodes get, all together, to start listening. */
    public Duration startTimeout() {
        return startTimeout;
    }

    /** Runs the deployment to its end; node processes are always stopped, even on failure. */
    public Result run() throws IOException, InterruptedException {
        start();
        boolean driverFinished;
        try {
            driverFinished = awaitEnd();
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            stopProcesses();
            throw e;
        }
        return finish(driverFinished);
    }

    /**
     * Starts every node and the workload driver and returns: for callers that decide themselves how long the
     * run lasts (a benchmark, say), then end it with {@link #stop()}. {@link #run()} is start, wait, stop.
     * Kills and restarts of the plan happen only under {@link #run()}. If a node fails to start, the ones
     * already started are stopped.
     */
    public void start() throws IOException, InterruptedException {
        if (clusterFile != null) {
            throw new IllegalStateException("a deployment starts once");
        }
        Files.createDirectories(plan.workDirectory());
        clusterFile = plan.workDirectory().resolve("cluster.json");
        workloadStartFile = plan.workDirectory().resolve("workload-start");
        // What this deployment's starts may remove again: only node directories it creates itself.
        List<Path> created = new ArrayList<>();
        for (NodeId node : plan.cluster().allIds()) {
            Path storage = plan.workDirectory().resolve(node.value()).resolve("storage");
            if (!Files.exists(storage)) {
                created.add(storage);
            }
            plan.traceDirectory().map(trace -> trace.resolve("nodes").resolve(node.value()))
                    .filter(directory -> !Files.exists(directory)).ifPresent(created::add);
        }
        for (int attempt = 1; ; attempt++) {
            try {
                startOnce(attempt);
                return;
            } catch (StartFailure e) {
                if (!e.addressInUse() || plan.ports() != Plan.Ports.CHOSEN_FREE || attempt >= START_ATTEMPTS) {
                    throw e;
                }
                progress.println("deja: " + e.node() + " could not listen on " + plan.cluster().member(e.node()).address()
                        + ": another process took that port after it was chosen free; starting the nodes again on other"
                        + " free ports (attempt " + (attempt + 1) + " of " + START_ATTEMPTS + ")");
                for (Path directory : created) {
                    deleteTree(directory);
                }
                plan = plan.withCluster(onFreshPorts(plan.cluster()));
                listening = 0;
            }
        }
    }

    /**
     * Start {@code attempt} of every node and the driver on the plan's ports; on failure, whatever it started is
     * stopped, or killed if the start will be tried again on other ports.
     */
    private void startOnce(int attempt) throws IOException, InterruptedException {
        plan.cluster().write(clusterFile);
        Files.deleteIfExists(workloadStartFile);
        startMillis = System.currentTimeMillis();
        try {
            for (NodeId node : plan.cluster().nodes().keySet()) {
                launch(node, clusterFile);
            }
            // One deadline for all: the nodes start in parallel, so the last one may need the whole time.
            long deadline = System.nanoTime() + startTimeout.toNanos();
            for (NodeId node : plan.cluster().nodes().keySet()) {
                awaitListening(node, deadline);
                listening++;
            }
            progress.println("deja: " + processes.size() + " nodes up on loopback"
                    + plan.traceDirectory().map(t -> ", recording to " + t).orElse(""));
            runStartNanos = System.nanoTime();
            workloadStarted = true;
            // The origin of partition times, for every node process (they read it when they first need it).
            dev.deja.trace.internal.Json.writeAtomically(workloadStartFile, System.currentTimeMillis());
            if (plan.driver().isPresent()) {
                NodeId id = plan.driver().get();
                try {
                    driver = LiveNode.start(id, plan.cluster(), new LiveNode.Options(
                            plan.workDirectory().resolve(id.value()).resolve("storage"), Optional.empty(),
                            new PrintStream(Files.newOutputStream(plan.workDirectory().resolve(id.value() + ".log")), true),
                            Optional.of(workloadStartFile)));
                } catch (IOException e) {
                    if (addressInUse(e)) {
                        throw new StartFailure(id, e.getMessage(), true);
                    }
                    throw e;
                }
            }
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            runStartNanos = 0;
            workloadStarted = false;
            if (e instanceof StartFailure failure && failure.addressInUse() && plan.ports() == Plan.Ports.CHOSEN_FREE
                    && attempt < START_ATTEMPTS) {
                killProcesses(); // nothing of this start is kept
            } else {
                stopProcesses();
            }
            throw e;
        }
    }

    /** Whether {@code e} or one of its causes says that an address was in use. */
    private static boolean addressInUse(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }

    /** {@code cluster} with a new free loopback port for every process. */
    private static ClusterSpec onFreshPorts(ClusterSpec cluster) {
        return new ClusterSpec(onFreshPorts(cluster.nodes()), onFreshPorts(cluster.clients()), cluster.faults());
    }

    private static Map<NodeId, ClusterSpec.Member> onFreshPorts(Map<NodeId, ClusterSpec.Member> members) {
        Map<NodeId, ClusterSpec.Member> moved = new LinkedHashMap<>();
        members.forEach((id, member) -> moved.put(id, new ClusterSpec.Member("127.0.0.1:" + freeLoopbackPort(),
                member.nodeClass(), member.args())));
        return moved;
    }

    /**
     * A loopback port that is free now (the system's choice for a socket bound to port 0). Free only until something
     * binds it: a plan made of such ports is {@link Plan.Ports#CHOSEN_FREE}.
     */
    public static int freeLoopbackPort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("no free port on loopback: " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /**
     * How many node processes listen so far while {@link #start()} waits for them; for progress reports, from any
     * thread.
     */
    public int nodesListening() {
        return listening;
    }

    /** How long the workload has run so far, empty while the nodes start; for progress reports, from any thread. */
    public Optional<Duration> runningFor() {
        return workloadStarted ? Optional.of(Duration.ofNanos(System.nanoTime() - runStartNanos)) : Optional.empty();
    }

    /** The workload driver's node object once {@link #start()} returned, if the plan has a driver. */
    public Optional<dev.deja.node.Node> driver() {
        return Optional.ofNullable(driver).map(LiveNode::node);
    }

    /**
     * Stops a deployment begun with {@link #start()}: the driver, then every node cleanly (SIGTERM), and writes
     * {@code trace.json} when recording.
     */
    public Result stop() throws IOException, InterruptedException {
        return finish(driver != null && driver.node() instanceof WorkloadDriver workload && workload.finished());
    }

    /** Waits for the driver to finish or the duration to end, performing kills and restarts on time. */
    private boolean awaitEnd() throws IOException, InterruptedException {
        int nextAction = 0;
        long endNanos = runStartNanos + plan.duration().toNanos();
        while (System.nanoTime() < endNanos) {
            while (nextAction < plan.actions().size()
                    && elapsedNanos() >= plan.actions().get(nextAction).at().toNanos()) {
                perform(plan.actions().get(nextAction++), clusterFile);
            }
            if (driver != null && driver.node() instanceof WorkloadDriver workload && workload.finished()
                    && nextAction >= plan.actions().size()) {
                return true;
            }
            checkNodesAlive();
            Thread.sleep(20);
        }
        return false;
    }

    private Result finish(boolean driverFinished) throws IOException, InterruptedException {
        stopProcesses();
        Duration elapsed = Duration.ofNanos(System.nanoTime() - runStartNanos);
        for (Partition partition : plan.cluster().faults().partitions()) { // as the simulator reports them
            if (partition.startMillis() <= elapsed.toMillis()) {
                events.add(new TraceSummary.LauncherEvent(partition.startMillis(), "partition", "", partition.toString()));
            }
            if (partition.healMillis() <= elapsed.toMillis()) {
                events.add(new TraceSummary.LauncherEvent(partition.healMillis(), "heal", "", partition.toString()));
            }
        }
        events.sort(Comparator.comparingLong(TraceSummary.LauncherEvent::atMillis));
        if (plan.traceDirectory().isPresent()) {
            Trace.writeSummary(plan.traceDirectory().get(), new TraceSummary(TraceEncoding.FORMAT_VERSION, "deploy",
                    plan.command(), plan.cluster().nodes().keySet().stream().map(NodeId::value).toList(), startMillis,
                    System.currentTimeMillis(), settingsWithFaults(), events));
        }
        return new Result(elapsed, driverFinished, List.copyOf(events));
    }

    /** The plan's settings plus the cluster's faults with their seed, so that the trace says how to inject them again. */
    private Map<String, Object> settingsWithFaults() {
        Map<String, Object> settings = new LinkedHashMap<>(plan.settings());
        settings.put("faults", plan.cluster().faults().describe());
        return settings;
    }

    /** Stops the driver and every node process; idempotent. */
    private void stopProcesses() throws InterruptedException {
        if (driver != null) {
            driver.stop();
        }
        stopAll();
    }

    private long elapsedNanos() {
        return System.nanoTime() - runStartNanos;
    }

    private void perform(NodeAction action, Path clusterFile) throws IOException, InterruptedException {
        Process process = processes.get(action.node());
        long atMillis = Duration.ofNanos(elapsedNanos()).toMillis();
        switch (action.kind()) {
            case KILL -> {
                if (process == null || !process.isAlive()) {
                    progress.println("deja: " + action.node() + " is not running; nothing to kill at " + atMillis + " ms");
                    return;
                }
                process.destroyForcibly(); // SIGKILL: no shutdown hook, no clean end of the recording
                process.waitFor();
                processes.remove(action.node());
                progress.println("deja: killed " + action.node() + " (kill -9) at " + atMillis + " ms");
                events.add(new TraceSummary.LauncherEvent(atMillis, "kill", action.node().value(), "SIGKILL"));
            }
            case RESTART -> {
                if (process != null && process.isAlive()) {
                    progress.println("deja: " + action.node() + " is still running; not restarted at " + atMillis + " ms");
                    return;
                }
                launch(action.node(), clusterFile);
                awaitListening(action.node(), System.nanoTime() + startTimeout.toNanos());
                progress.println("deja: restarted " + action.node() + " at " + atMillis + " ms");
                events.add(new TraceSummary.LauncherEvent(atMillis, "restart", action.node().value(), "new incarnation"));
            }
        }
    }

    private void launch(NodeId node, Path clusterFile) throws IOException {
        List<String> flags = new ArrayList<>(plan.nodeJvmFlags());
        plan.traceDirectory().ifPresent(t -> flags.add("-D" + Recording.PROPERTY + "=" + t.toAbsolutePath()));
        List<String> command = childJavaCommand(flags, plan.classpath(), NodeMain.class.getName(), List.of(
                "--cluster", clusterFile.toAbsolutePath().toString(), "--node", node.value(),
                "--workload-start", workloadStartFile.toAbsolutePath().toString(), "--storage",
                plan.workDirectory().resolve(node.value()).resolve("storage").toAbsolutePath().toString()));
        Path log = plan.workDirectory().resolve(node.value() + ".log");
        logStarts.put(node, Files.exists(log) ? Files.size(log) : 0L);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        processes.put(node, process);
    }

    /**
     * The command that runs {@code mainClass} in a new JVM like this one: this JVM's java binary and
     * {@link #childJvmFlags()}, then {@code extraFlags}, the classpath, the main class and its arguments.
     */
    public static List<String> childJavaCommand(List<String> extraFlags, String classpath, String mainClass,
                                                List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(childJvmFlags());
        command.addAll(extraFlags);
        command.addAll(List.of("-cp", classpath, mainClass));
        command.addAll(arguments);
        return command;
    }

    /** The flags of this JVM that node processes need too (module opens, Chronicle settings), plus a small heap. */
    public static List<String> childJvmFlags() {
        List<String> flags = new ArrayList<>(List.of("-XX:+UseSerialGC", "-Xmx256m", "-XX:TieredStopAtLevel=1"));
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-") || argument.startsWith("--enable-native-access")
                    || argument.startsWith("--sun-misc-unsafe-memory-access") || argument.startsWith("-Dchronicle.")
                    || argument.startsWith("-Dorg.slf4j.")) {
                flags.add(argument);
            }
        }
        return flags;
    }

    /**
     * Waits until {@code node}'s process says it listens: a connection alone could reach another process that holds
     * the port, while the node fails to bind it.
     */
    private void awaitListening(NodeId node, long deadline) throws IOException, InterruptedException {
        InetSocketAddress address = plan.cluster().member(node).socketAddress();
        while (System.nanoTime() < deadline) {
            Process process = processes.get(node);
            if (process != null && !process.isAlive()) {
                int status = process.exitValue();
                throw new StartFailure(node, "node " + node + " exited with status " + status + " during start-up"
                        + outputOf(node), status == NodeMain.ADDRESS_IN_USE);
            }
            if (saysListening(node)) {
                try (Socket probe = new Socket()) {
                    probe.connect(address, 200);
                    return;
                } catch (IOException notYet) {
                    // listening said, not yet accepting: try again
                }
            }
            Thread.sleep(50);
        }
        Process process = processes.get(node);
        String limit = startTimeout.toMillis() < 10_000 ? startTimeout.toMillis() + " ms" : startTimeout.toSeconds() + " s";
        throw new StartFailure(node, "node " + node + " did not listen on " + address + " within " + limit + " (" + plan.cluster().nodes().size() + " node JVMs starting on "
                + Runtime.getRuntime().availableProcessors() + " cores at load average " + String.format(java.util.Locale.ROOT,
                "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()) + "; its process "
                + (process != null && process.isAlive() ? "was still starting" : "had ended") + "; a longer limit: "
                + "--start-timeout)" + outputOf(node));
    }

    /** Whether {@code node}'s process printed, since its launch, the line saying it listens ({@link NodeMain}). */
    private boolean saysListening(NodeId node) throws IOException {
        Path log = plan.workDirectory().resolve(node.value() + ".log");
        long from = logStarts.getOrDefault(node, 0L);
        if (!Files.exists(log) || Files.size(log) <= from) {
            return false;
        }
        try (java.io.InputStream in = Files.newInputStream(log)) {
            in.skipNBytes(from);
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).contains(NodeMain.LISTENING);
        }
    }

    /** The last lines the node printed, and where its whole output is, for a start-up failure's message. */
    private String outputOf(NodeId node) {
        Path log = plan.workDirectory().resolve(node.value() + ".log");
        List<String> lines;
        try {
            lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        } catch (IOException | java.io.UncheckedIOException e) {
            lines = List.of();
        }
        lines = lines.stream().filter(line -> !line.isBlank()).toList();
        if (lines.isEmpty()) {
            return "; it printed nothing (" + log + " is empty: the JVM had not got as far as its first line)";
        }
        List<String> last = lines.subList(Math.max(0, lines.size() - 3), lines.size()).stream().map(String::strip).toList();
        return "; its last output (" + log + "): " + String.join(" | ", last);
    }

    /** A node process that did not come up: exited, or did not listen within the start-up limit. */
    public static final class StartFailure extends IOException {
        @java.io.Serial
        private static final long serialVersionUID = 1L;
        private final transient NodeId node;
        private final boolean addressInUse;

        StartFailure(NodeId node, String message) {
            this(node, message, false);
        }

        StartFailure(NodeId node, String message, boolean addressInUse) {
            super(message);
            this.node = node;
            this.addressInUse = addressInUse;
        }

        /** The node that did not come up. */
        public NodeId node() {
            return node;
        }

        /** Whether it did not come up because another process held its address. */
        public boolean addressInUse() {
            return addressInUse;
        }
    }

    private void checkNodesAlive() throws IOException {
        for (var entry : processes.entrySet()) {
            if (!entry.getValue().isAlive()) {
                throw new IOException("node " + entry.getKey() + " exited unexpectedly with status "
                        + entry.getValue().exitValue() + "; see " + plan.workDirectory().resolve(entry.getKey().value() + ".log"));
            }
        }
    }

    /** Kills every node process at once (SIGKILL): a start that failed keeps nothing. */
    private void killProcesses() throws InterruptedException {
        if (driver != null) {
            driver.stop();
            driver = null;
        }
        for (Process process : processes.values()) {
            process.destroyForcibly();
        }
        for (Process process : processes.values()) {
            process.waitFor();
        }
        processes.clear();
    }

    private void stopAll() throws InterruptedException {
        for (Process process : processes.values()) {
            process.destroy(); // SIGTERM: the node finishes its handler and completes its recording
        }
        for (var entry : processes.entrySet()) {
            Process process = entry.getValue();
            if (!process.waitFor(java.util.concurrent.TimeUnit.SECONDS.toMillis(15), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                progress.println("deja: " + entry.getKey() + " did not stop within 15 s; killing it");
                process.destroyForcibly();
                process.waitFor();
            }
        }
        processes.clear();
    }
}
