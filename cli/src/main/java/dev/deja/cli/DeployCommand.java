package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.Deployment;
import dev.deja.runtime.FaultModel;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Runs an example or a user's cluster file on loopback, one process per node, and records it. */
@Command(name = "deploy", mixinStandardHelpOptions = true,
        description = {"Run an example, or your own cluster file, on loopback: one JVM per node talking real TCP, "
                + "plus the workload client in this process; inject faults; record every node into one trace."},
        footer = {"", "Examples:", "  ./deja deploy paxos --nodes 5 --drop 0.2 --bug latest-response --out traces/paxos",
                "  ./deja deploy paxos --nodes 3 --kill n2@1s --restart n2@2s --duration 5s --out traces/crash",
                "  ./deja deploy --cluster cluster.json --classpath target/classes \\",
                "      --kill n2@1s --restart n2@2s --out traces/mine"})
public final class DeployCommand implements Callable<Integer> {
    @Parameters(paramLabel = "EXAMPLE", arity = "0..1", completionCandidates = ExampleNames.class,
            description = "The example to run: ${COMPLETION-CANDIDATES} (see 'deja examples'); or give --cluster.")
    String example;

    @Option(names = "--cluster", paramLabel = "FILE",
            description = "Your cluster file (JSON: nodes, clients, faults) instead of an example; see README, \"Your own system\".")
    Path cluster;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION
            + " With --cluster, every node JVM runs on it plus the recorder.")
    String classpath;

    @Option(names = "--driver", paramLabel = "ID",
            description = "With --cluster: the client that drives the workload, run in this process (default: the "
                    + "cluster file's only client, if it has one).")
    String driverId;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of node processes (default: the example's).")
    Integer nodes;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "20s", converter = Durations.class,
            description = "How long the workload may run; it stops earlier when the workload is done (default: ${DEFAULT-VALUE}).")
    Duration duration;

    /** A summary of the run: the trace, its events per node, how the run ended, the fault seed. */
    @Mixin
    JsonOutput json;

    @Option(names = "--start-timeout", paramLabel = "TIME", converter = Durations.class,
            description = "How long the node JVMs get, together, to start listening (default: scaled to this machine's "
                    + "cores and load average, at least 60 s).")
    Duration startTimeout;

    @Option(names = "--bug", paramLabel = "NAME", description = "Switch on one of the example's bugs.")
    String bug;

    @Option(names = "--out", paramLabel = "TRACE",
            description = "The trace directory to create (required; must not exist or be empty).")
    Path record;

    /** The old spelling of {@code --out}, kept so existing scripts run. */
    @Option(names = "--record", hidden = true, paramLabel = "TRACE")
    void oldRecord(Path trace) {
        record = trace;
    }

    @Mixin
    FaultOptions faults = new FaultOptions();

    @Option(names = "--arg", paramLabel = "KEY=VALUE",
            description = "An argument for every cluster node, e.g. --arg slots=100 for Paxos (repeatable; see 'deja examples').")
    Map<String, String> nodeArgs = new LinkedHashMap<>();

    @Option(names = "--work", paramLabel = "DIR",
            description = "Where node storage and node output go (default: a new temporary directory).")
    Path work;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // With the JSON on standard output, what is said for humans goes to standard error.
        PrintStream text = json.toStandardOutput() ? System.err : System.out;
        if (record == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--out=TRACE'");
        }
        if ((example == null) == (cluster == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give either an EXAMPLE or --cluster FILE (see 'deja deploy --help')");
        }
        if (faults.crashRate != null || faults.restartDelay != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--crash-rate and --restart-delay are for "
                    + "'deja simulate'; a deployment kills and restarts nodes with --kill NODE@TIME and --restart NODE@TIME");
        }
        requireEmptyOrAbsent(record);
        Path workDirectory = work != null ? work : Files.createTempDirectory("deja-deploy-");
        String command = "deja " + String.join(" ", spec.commandLine().getParseResult().originalArgs().stream()
                .map(DeployCommand::quoted).toList());
        Deployment.Plan plan;
        String what;
        if (cluster != null) {
            if (nodes != null || bug != null || !nodeArgs.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--nodes, --bug and --arg are for examples; with --cluster, the cluster file says them");
            }
            ClusterSpec clusterSpec = ClusterSpec.read(cluster);
            ClusterSpec withFaults = clusterSpec.withFaults(seeded(faults.applyTo(clusterSpec.faults())));
            Optional<NodeId> driver = driver(clusterSpec);
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("cluster", cluster.toAbsolutePath().toString());
            settings.put("classpath", classpath);
            settings.put("driver", driver.map(NodeId::value).orElse(null));
            settings.put("durationMillis", duration.toMillis());
            plan = new Deployment.Plan(withFaults, driver, Optional.of(record.toAbsolutePath()),
                    workDirectory.toAbsolutePath(), duration, List.of(), nodeClasspath(classpath), settings, command);
            what = cluster + " (" + clusterSpec.nodes().size() + " nodes" + driver.map(d -> ", workload client " + d).orElse("")
                    + ")";
        } else {
            Example chosen = Examples.byName(example).orElseThrow(() -> new IllegalArgumentException("unknown example '"
                    + example + "'; the examples are: " + String.join(", ", Examples.all().stream().map(Example::name).toList())));
            int count = nodes == null ? chosen.defaultNodes() : nodes;
            ExampleDeployment.Builder builder = ExampleDeployment.builder(chosen).nodes(count).bug(bug)
                    .faults(seeded(faults.applyTo(FaultModel.NONE))).duration(duration).record(record)
                    .workDirectory(workDirectory).command(command);
            nodeArgs.forEach(builder::arg);
            plan = builder.build().plan();
            what = chosen.name() + (bug == null ? "" : " with bug " + bug) + " on " + count + " processes";
        }
        FaultModel injected = plan.cluster().faults();
        text.println("deja: deploying " + what + ", at most " + duration.toSeconds() + " s; faults: "
                + describe(injected));
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Deployment.Result result;
        try {
            // The workload client runs in this process: its class may come from --classpath.
            Thread.currentThread().setContextClassLoader(UserClasspath.loader(classpath));
            Deployment deployment = new Deployment(plan, text).startTimeout(startTimeout != null ? startTimeout
                : Deployment.startTimeoutFor(plan.cluster().nodes().size()));
            result = DeploymentProgress.run(deployment, duration, plan.cluster().nodes().size());
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
        Trace trace = Trace.open(record);
        long events = 0;
        StringBuilder perNode = new StringBuilder();
        Map<String, Long> eventsPerNode = new LinkedHashMap<>();
        for (NodeLog log : trace.nodes()) {
            long nodeEvents = 0;
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent ignored = cursor.next();
                    nodeEvents++;
                }
            }
            events += nodeEvents;
            eventsPerNode.put(log.node().value(), nodeEvents);
            perNode.append(perNode.isEmpty() ? "" : ", ").append(log.node()).append(' ').append(nodeEvents);
        }
        text.printf("deja: ran %.1f s (%s); recorded %d events of %d nodes (%s) into %s%n",
                result.elapsed().toMillis() / 1000.0, result.driverFinished() ? "workload finished" : "duration reached",
                events, trace.nodes().size(), perNode, record);
        text.println("deja: node output and storage are in " + workDirectory);
        if (injected.affectsMessages() || injected.clockSkewMillis() > 0) {
            text.println("deja: fault seed " + injected.seed() + " (kept in trace.json; --fault-seed "
                    + injected.seed() + " injects the same faults into the same message ids again)");
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("trace", record.toString());
        summary.put("deployed", what);
        summary.put("seconds", result.elapsed().toMillis() / 1000.0);
        summary.put("workloadFinished", result.driverFinished());
        summary.put("events", events);
        summary.put("eventsPerNode", eventsPerNode);
        summary.put("faultSeed", injected.seed());
        summary.put("workDirectory", workDirectory.toString());
        summary.put("command", command);
        json.write(summary);
        return ExitCodes.OK;
    }

    /** {@code model} with a fresh seed if it has none (seed 0) and none was given. */
    private FaultModel seeded(FaultModel model) {
        if (faults.hasFaultSeed() || model.seed() != 0) {
            return model;
        }
        return model.toBuilder().seed(new SecureRandom().nextLong(1, Long.MAX_VALUE)).build();
    }

    private Optional<NodeId> driver(ClusterSpec spec) {
        if (driverId != null) {
            NodeId id = new NodeId(driverId);
            if (!spec.clients().containsKey(id)) {
                throw new IllegalArgumentException("--driver " + driverId + ": not a client of " + cluster
                        + " (its clients: " + spec.clients().keySet().stream().map(NodeId::value).sorted().toList() + ")");
            }
            return Optional.of(id);
        }
        if (spec.clients().size() > 1) {
            throw new IllegalArgumentException(cluster + " has " + spec.clients().size()
                    + " clients; say which one drives the workload with --driver ID");
        }
        return spec.clients().keySet().stream().findFirst();
    }

    /** One line naming every fault in force. */
    static String describe(FaultModel model) {
        List<String> parts = new ArrayList<>();
        if (model.dropProbability() > 0) {
            parts.add("drop " + model.dropProbability());
        }
        if (model.duplicateProbability() > 0) {
            parts.add("duplicate " + model.duplicateProbability());
        }
        if (model.maxDelayMillis() > 0) {
            parts.add("delay " + model.minDelayMillis() + ".." + model.maxDelayMillis() + " ms");
        }
        model.partitions().forEach(p -> parts.add("partition " + p));
        model.scheduled().forEach(a -> parts.add(a.kind().name().toLowerCase() + " " + a));
        if (model.crashRate() > 0) {
            parts.add("crash rate " + model.crashRate() + " (restart after " + model.restartDelayMillis() + " ms)");
        }
        if (model.clockSkewMillis() > 0) {
            parts.add("clock skew up to " + model.clockSkewMillis() + " ms");
        }
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    /**
     * The node JVMs' classpath: the user's jars, then the recorder and its dependencies (from the build's list when
     * this runs from a checkout, otherwise this program's own classpath, which holds them too).
     */
    static String nodeClasspath(String userClasspath) throws IOException {
        String recorder = System.getProperty("java.class.path");
        String home = System.getProperty("deja.home");
        if (home != null) {
            Path list = Path.of(home, "recorder", "target", "classpath.txt");
            Path jarDirectory = Path.of(home, "recorder", "target");
            if (Files.isRegularFile(list)) {
                try (Stream<Path> jars = Files.list(jarDirectory)) {
                    Optional<Path> jar = jars.filter(p -> p.getFileName().toString().matches("deja-recorder-[^-]+(-SNAPSHOT)?\\.jar"))
                            .findFirst();
                    if (jar.isPresent()) {
                        recorder = jar.get().toAbsolutePath() + File.pathSeparator + Files.readString(list).strip();
                    }
                }
            }
        }
        return userClasspath == null || userClasspath.isBlank() ? recorder : userClasspath + File.pathSeparator + recorder;
    }

    static String quoted(String arg) {
        return arg.matches("[A-Za-z0-9_./:=@,+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    private static void requireEmptyOrAbsent(Path directory) throws IOException {
        if (Files.exists(directory)) {
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("--out " + directory + " exists and is not a directory");
            }
            try (Stream<Path> entries = Files.list(directory)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("--out " + directory
                            + " already holds files; traces are never overwritten, choose a new directory");
                }
            }
        }
    }

    /** Completion candidates for the example name. */
    static final class ExampleNames extends ArrayList<String> {
        ExampleNames() {
            super(Examples.all().stream().map(Example::name).toList());
        }
    }
}
