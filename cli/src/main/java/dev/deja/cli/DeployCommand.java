package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.runtime.Deployment;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Runs an example on loopback, one process per node, and records it. */
@Command(name = "deploy", mixinStandardHelpOptions = true,
        description = {"Run an example on loopback: one JVM per node talking real TCP, plus the example's "
                + "workload driver; inject faults; record every node into one trace."},
        footer = {"", "Examples:", "  ./deja deploy paxos --nodes 5 --drop 0.2 --bug latest-response --out traces/paxos",
                "  ./deja deploy paxos --nodes 3 --kill n2@1s --restart n2@2s --duration 5s --out traces/crash"})
public final class DeployCommand implements Callable<Integer> {
    @Parameters(paramLabel = "EXAMPLE", completionCandidates = ExampleNames.class,
            description = "The example to run: ${COMPLETION-CANDIDATES} (see 'deja examples').")
    String example;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of node processes (default: the example's).")
    Integer nodes;

    @Option(names = "--drop", paramLabel = "P", defaultValue = "0",
            description = "Probability that a message between processes is lost (default: ${DEFAULT-VALUE}).")
    double drop;

    @Option(names = "--delay", paramLabel = "MAX", defaultValue = "0ms", converter = Durations.class,
            description = "Extra random delay of up to MAX per message, which also reorders (default: ${DEFAULT-VALUE}).")
    Duration delay;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "20s", converter = Durations.class,
            description = "How long the workload may run; it stops earlier when the workload is done (default: ${DEFAULT-VALUE}).")
    Duration duration;

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

    @Option(names = "--kill", paramLabel = "NODE@TIME", description = "kill -9 NODE at TIME after the workload starts (repeatable).")
    List<String> kills = new ArrayList<>();

    @Option(names = "--restart", paramLabel = "NODE@TIME", description = "Restart NODE at TIME, as a new incarnation (repeatable).")
    List<String> restarts = new ArrayList<>();

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
        if (record == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--out=TRACE'");
        }
        Example chosen = Examples.byName(example).orElseThrow(() -> new IllegalArgumentException("unknown example '"
                + example + "'; the examples are: " + String.join(", ", Examples.all().stream().map(Example::name).toList())));
        int count = nodes == null ? chosen.defaultNodes() : nodes;
        requireEmptyOrAbsent(record);
        Path workDirectory = work != null ? work : Files.createTempDirectory("deja-deploy-");
        ExampleDeployment.Builder builder = ExampleDeployment.builder(chosen).nodes(count).bug(bug)
                .dropProbability(drop).maxExtraDelay(delay).duration(duration).record(record)
                .workDirectory(workDirectory)
                .command("deja " + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
        nodeArgs.forEach(builder::arg);
        kills.forEach(k -> builder.action(action(Deployment.NodeAction.Kind.KILL, k, "--kill")));
        restarts.forEach(r -> builder.action(action(Deployment.NodeAction.Kind.RESTART, r, "--restart")));
        Deployment.Plan plan = builder.build().plan();
        System.out.println("deja: deploying " + chosen.name() + (bug == null ? "" : " with bug " + bug) + " on "
                + count + " processes (drop " + drop + ", extra delay up to " + delay.toMillis() + " ms, at most "
                + duration.toSeconds() + " s)");
        Deployment.Result result = new Deployment(plan, System.out).run();
        Trace trace = Trace.open(record);
        long events = 0;
        StringBuilder perNode = new StringBuilder();
        for (NodeLog log : trace.nodes()) {
            long nodeEvents = 0;
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent ignored = cursor.next();
                    nodeEvents++;
                }
            }
            events += nodeEvents;
            perNode.append(perNode.isEmpty() ? "" : ", ").append(log.node()).append(' ').append(nodeEvents);
        }
        System.out.printf("deja: ran %.1f s (%s); recorded %d events of %d nodes (%s) into %s%n",
                result.elapsed().toMillis() / 1000.0, result.driverFinished() ? "workload finished" : "duration reached",
                events, trace.nodes().size(), perNode, record);
        System.out.println("deja: node output and storage are in " + workDirectory);
        return 0;
    }

    private static Deployment.NodeAction action(Deployment.NodeAction.Kind kind, String text, String option) {
        int at = text.indexOf('@');
        if (at <= 0) {
            throw new IllegalArgumentException(option + " " + text + ": expected NODE@TIME, e.g. n2@5s");
        }
        return new Deployment.NodeAction(kind, new NodeId(text.substring(0, at)), Durations.parse(text.substring(at + 1)));
    }

    private static void requireEmptyOrAbsent(Path directory) throws IOException {
        if (Files.exists(directory)) {
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("--out " + directory + " exists and is not a directory");
            }
            try (Stream<Path> entries = Files.list(directory)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("--record " + directory
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
