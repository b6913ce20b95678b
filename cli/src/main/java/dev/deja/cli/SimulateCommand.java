package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.sim.Partition;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Runs an example in the deterministic simulator and writes its trace. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Run an example in one process on virtual time, every nondeterministic choice (event order, "
                + "message loss, duplication, delay, partitions, crashes, random draws) drawn from one seed, and "
                + "write a trace in the same format as 'deploy'. The same seed and options give the same trace, byte for byte."},
        footer = {"", "Examples:",
                "  deja simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3 --delay 1ms..100ms --out traces/sim",
                "  deja simulate paxos --seed 3 --crash-rate 0.01 --partition 'n1,n2|n3,n4,n5@1s..3s' --out traces/part"})
public final class SimulateCommand implements Callable<Integer> {
    private static final Pattern RANGE = Pattern.compile("(.+)\\.\\.(.+)");

    @Parameters(paramLabel = "EXAMPLE", completionCandidates = DeployCommand.ExampleNames.class,
            description = "The example to simulate: ${COMPLETION-CANDIDATES} (see 'deja examples').")
    String example;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (default: the example's).")
    Integer nodes;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of every choice (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--bug", paramLabel = "NAME", description = "Switch on one of the example's bugs.")
    String bug;

    @Option(names = "--arg", paramLabel = "KEY=VALUE",
            description = "An argument for every cluster node, e.g. --arg slots=20 for Paxos (repeatable; see 'deja examples').")
    Map<String, String> nodeArgs = new LinkedHashMap<>();

    @Option(names = "--drop", paramLabel = "P", defaultValue = "0", description = "Probability that a message is lost (default: ${DEFAULT-VALUE}).")
    double drop;

    @Option(names = "--dup", paramLabel = "P", defaultValue = "0", description = "Probability that a message is delivered twice (default: ${DEFAULT-VALUE}).")
    double dup;

    @Option(names = "--delay", paramLabel = "MIN..MAX", defaultValue = "1ms..10ms",
            description = "Time a message spends in the network, uniformly in MIN..MAX; unequal delays reorder (default: ${DEFAULT-VALUE}).")
    String delay;

    @Option(names = "--crash-rate", paramLabel = "R", defaultValue = "0",
            description = "Probability, after each event, that one running node crashes (default: ${DEFAULT-VALUE}). Unsynced storage writes are lost.")
    double crashRate;

    @Option(names = "--restart-delay", paramLabel = "TIME", defaultValue = "500ms", converter = Durations.class,
            description = "How long a crashed node stays down before restarting (default: ${DEFAULT-VALUE}).")
    Duration restartDelay;

    @Option(names = "--clock-skew", paramLabel = "TIME", defaultValue = "0ms", converter = Durations.class,
            description = "Each node's clock is off by a fixed amount within +/- TIME (default: ${DEFAULT-VALUE}).")
    Duration clockSkew;

    @Option(names = "--partition", paramLabel = "SPEC",
            description = "A partition and its healing, GROUP|GROUP@START..HEAL, e.g. n1,n2|n3,n4,n5@2s..5s (repeatable).")
    List<String> partitions = new ArrayList<>();

    @CommandLine.ArgGroup(exclusive = false)
    Limit limit = new Limit();

    static final class Limit {
        @Option(names = "--steps", paramLabel = "K", description = "Stop after K events (with --virtual-time too: at whichever comes first).")
        Long steps;

        @Option(names = "--virtual-time", paramLabel = "TIME", converter = Durations.class,
                description = "Stop after TIME of virtual time (default: 60s).")
        Duration virtualTime;
    }

    @Option(names = "--until-limit", description = "Keep running after the workload client finished, up to the step or time limit.")
    boolean untilLimit;

    @Option(names = "--out", required = true, paramLabel = "TRACE", description = "The trace directory to create.")
    Path out;

    @Option(names = "--force", description = "Replace an existing trace at --out (only one written by 'deja simulate').")
    boolean force;

    @Option(names = "--node-output", description = "Print the nodes' log lines, prefixed with virtual time.")
    boolean nodeOutput;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Example chosen = Examples.byName(example).orElseThrow(() -> new IllegalArgumentException("unknown example '"
                + example + "'; the examples are: " + String.join(", ", Examples.all().stream().map(Example::name).toList())));
        int count = nodes == null ? chosen.defaultNodes() : nodes;
        long[] delayMillis = range(delay);
        SimulationSettings.Builder builder = ExampleSimulation.settings(chosen, count, Optional.ofNullable(bug), nodeArgs)
                .seed(seed).dropProbability(drop)
                .duplicateProbability(dup).delayMillis(delayMillis[0], delayMillis[1]).crashRate(crashRate)
                .restartDelayMillis(restartDelay.toMillis()).clockSkewMillis(clockSkew.toMillis())
                .stop(untilLimit ? SimulationSettings.Stop.AT_LIMIT : SimulationSettings.Stop.WHEN_DRIVER_FINISHES);
        partitions.forEach(p -> builder.partition(Partition.parse(p)));
        if (limit.steps != null) {
            // Steps alone bound the run; virtual time too only when both are given.
            builder.maxSteps(limit.steps).maxVirtualMillis(limit.virtualTime != null ? limit.virtualTime.toMillis()
                    : SimulationSettings.UNLIMITED_VIRTUAL_MILLIS);
        } else if (limit.virtualTime != null) {
            builder.maxVirtualMillis(limit.virtualTime.toMillis());
        }
        SimulationSettings settings = builder.build();
        prepareOutput();
        String command = "deja " + String.join(" ", spec.commandLine().getParseResult().originalArgs().stream()
                .map(SimulateCommand::quoted).toList());
        Simulator.Options options = Simulator.Options.of(settings).withCommand(command)
                .withClassLoader(SimulateCommand.class.getClassLoader());
        if (nodeOutput) {
            options = options.withNodeOutput(System.out::println);
        }
        SimulationResult result = Simulator.run(settings, out, options);
        System.out.printf("deja: simulated %s%s on %d nodes, seed %d: %d events (%d recorded) in %.1f s of virtual time, "
                        + "%d crashes, %d messages lost, %d duplicated; %s; %.2f s (%.0f events/s) into %s%n",
                chosen.name(), bug == null ? "" : " with bug " + bug, count, seed, result.steps(), result.entries(),
                result.virtualMillis() / 1000.0, result.crashes(), result.dropped(), result.duplicated(),
                ending(result.ending()), result.elapsed().toNanos() / 1e9, result.stepsPerSecond(), out);
        System.out.println("deja: reproduce with: " + command.replace(" --force", ""));
        return 0;
    }

    private static String ending(SimulationResult.Ending ending) {
        return switch (ending) {
            case DRIVER_FINISHED -> "the workload finished";
            case STEP_LIMIT -> "step limit reached";
            case TIME_LIMIT -> "virtual time limit reached";
            case QUIESCENT -> "nothing left to happen";
        };
    }

    private static long[] range(String text) {
        Matcher matcher = RANGE.matcher(text.strip());
        if (!matcher.matches()) {
            throw new IllegalArgumentException("--delay '" + text + "' must read MIN..MAX, e.g. 1ms..50ms");
        }
        try {
            return new long[] {Durations.parse(matcher.group(1)).toMillis(), Durations.parse(matcher.group(2)).toMillis()};
        } catch (CommandLine.TypeConversionException e) {
            throw new IllegalArgumentException("--delay '" + text + "': " + e.getMessage());
        }
    }

    private static String quoted(String arg) {
        return arg.matches("[A-Za-z0-9_./:=@,+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    private void prepareOutput() throws IOException {
        if (!Files.exists(out)) {
            return;
        }
        if (!Files.isDirectory(out)) {
            throw new IllegalArgumentException("--out " + out + " exists and is not a directory");
        }
        try (Stream<Path> entries = Files.list(out)) {
            if (entries.findAny().isEmpty()) {
                return;
            }
        }
        if (!force) {
            throw new IllegalArgumentException("--out " + out + " already holds files; choose a new directory or add --force");
        }
        Path summary = out.resolve("trace.json");
        if (!Files.isRegularFile(summary) || !Files.readString(summary).contains("\"kind\" : \"simulate\"")) {
            throw new IllegalArgumentException("--out " + out + " is not a trace written by 'deja simulate'; --force only"
                    + " replaces simulated traces");
        }
        try (Stream<Path> walk = Files.walk(out)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
