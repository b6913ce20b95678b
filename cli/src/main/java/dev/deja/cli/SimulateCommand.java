package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.Examples;
import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.FaultModel;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Schedule;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import dev.deja.sim.StepObserver;
import java.io.IOException;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import java.io.PrintStream;
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
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Runs an example in the deterministic simulator and writes its trace. */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Run an example, or your own cluster file, in one process on virtual time, every nondeterministic choice (event order, "
                + "message loss, duplication, delay, partitions, crashes, random draws) drawn from one seed, and "
                + "write a trace in the same format as 'deploy'. The same seed and options give the same trace, byte for byte."},
        footer = {"", "Examples:",
                "  ./deja simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3 --delay 1ms..100ms \\",
                "      --out traces/sim",
                "  ./deja simulate paxos --seed 3 --crash-rate 0.01 --partition 'n1,n2|n3,n4,n5@1s..3s' \\",
                "      --out traces/part",
                "  ./deja simulate --cluster cluster.json --classpath target/classes --seed 5 --drop 0.1 \\",
                "      --out traces/sim"})
public final class SimulateCommand implements Callable<Integer> {
    @Parameters(paramLabel = "EXAMPLE", arity = "0..1", completionCandidates = DeployCommand.ExampleNames.class,
            description = "The example to simulate: ${COMPLETION-CANDIDATES} (see 'deja examples'); or give --cluster.")
    String example;

    @Option(names = "--cluster", paramLabel = "FILE",
            description = "Your cluster file (the one 'deja deploy --cluster' takes) instead of an example: its nodes, "
                    + "its workload client and its faults (kill/restart times aside), under the options given here.")
    Path cluster;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @Option(names = "--driver", paramLabel = "ID",
            description = "With --cluster: the client that drives the workload (default: the cluster file's only client).")
    String driverId;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (default: the example's).")
    Integer nodes;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of every choice (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--bug", paramLabel = "NAME", description = "Switch on one of the example's bugs.")
    String bug;

    @Option(names = "--arg", paramLabel = "KEY=VALUE",
            description = "An argument for every cluster node, e.g. --arg slots=20 for Paxos (repeatable; see 'deja examples').")
    Map<String, String> nodeArgs = new LinkedHashMap<>();

    @Mixin
    FaultOptions faults = new FaultOptions();

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

    /** A summary of the run: what was simulated, the figures of the summary line, the command to reproduce it. */
    @CommandLine.Mixin
    JsonOutput json;

    @Mixin
    FromTraceOptions fromTrace = new FromTraceOptions();

    @Option(names = "--schedule", paramLabel = "FILE",
            description = "Answer every choice from this schedule (written by 'deja explore') instead of the seed: the "
                    + "explored path again, as a trace. Give the same example or cluster options and --seed as the explore run.")
    Path schedule;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Optional<TraceStart> start = fromTrace.start(spec);
        if ((example == null) == (cluster == null) && !(start.isPresent() && example == null && cluster == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give either an EXAMPLE or --cluster FILE (see 'deja simulate --help')");
        }
        if (faults.hasFaultSeed()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "the simulator draws every fault from --seed; --fault-seed is for 'deja deploy'");
        }
        if (faults.hasScheduled()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kill and --restart at fixed times are for "
                    + "'deja deploy'; the simulator crashes nodes with --crash-rate R (and --restart-delay TIME)");
        }
        Target target = start.isPresent() && example == null && cluster == null
                ? new Target(FromTraceOptions.settingsOf(start.get(), faults), FromTraceOptions.describe(start.get()))
                : target(spec, example, cluster, driverId, nodes, bug, nodeArgs, faults);
        SimulationSettings.Builder builder = target.builder();
        String what = start.isPresent() ? FromTraceOptions.describe(start.get()) : target.what();
        builder.seed(seed).stop(untilLimit || start.isPresent() ? SimulationSettings.Stop.AT_LIMIT
                : SimulationSettings.Stop.WHEN_DRIVER_FINISHES);
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
                .map(DeployCommand::quoted).toList());
        Simulator.Options options = Simulator.Options.of(settings).withCommand(command)
                .withClassLoader(UserClasspath.loader(classpath));
        if (nodeOutput) {
            options = options.withNodeOutput(System.out::println);
        }
        if (start.isPresent()) {
            FromTraceOptions.rebuildOnce(settings, start.get(), options.classLoader(), "the run starts there");
            options = options.withStart(start.get());
        }
        if (schedule != null) {
            Schedule answers = Schedule.read(schedule);
            options = options.withChoices(answers.replay(schedule.toString())).withExploration(answers.exploration())
                    .withObserver(answers.stopper(StepObserver.NONE));
        }
        SimulationResult result;
        try (Progress progress = Progress.start("simulate", limit.steps != null ? limit.steps : Progress.UNKNOWN_TOTAL,
                "steps")) {
            result = Simulator.run(settings, out, options.withChoices(new StepCounting(options.choices(), progress)));
        }
        PrintStream text = json.toStandardOutput() ? System.err : System.out;
        text.printf("deja: simulated %s on %d nodes, seed %d: %d events (%d recorded) in %.1f s of virtual time, "
                        + "%d crashes, %d messages lost, %d duplicated; %s; %.2f s (%.0f events/s) into %s%n",
                what, settings.nodes().size(), seed, result.steps(), result.entries(),
                result.virtualMillis() / 1000.0, result.crashes(), result.dropped(), result.duplicated(),
                ending(result.ending()), result.elapsed().toNanos() / 1e9, result.stepsPerSecond(), out);
        text.println("deja: reproduce with: ./" + command.replace(" --force", ""));
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("trace", out.toString());
        summary.put("simulated", what);
        summary.put("nodes", settings.nodes().size());
        summary.put("seed", seed);
        summary.put("steps", result.steps());
        summary.put("entries", result.entries());
        summary.put("virtualMillis", result.virtualMillis());
        summary.put("crashes", result.crashes());
        summary.put("dropped", result.dropped());
        summary.put("duplicated", result.duplicated());
        summary.put("ending", result.ending().name());
        summary.put("seconds", result.elapsed().toNanos() / 1e9);
        summary.put("command", "./" + command.replace(" --force", ""));
        json.write(summary);
        return ExitCodes.OK;
    }

    /** The run's choices, unchanged; the step numbers they carry move the progress on. */
    private record StepCounting(ChoiceSource choices, Progress progress) implements ChoiceSource {
        @Override
        public int pick(ChoicePoint point, int options) {
            if (point instanceof ChoicePoint.NextEvent next) {
                progress.stepTo(next.step());
            }
            return choices.pick(point, options);
        }

        @Override
        public boolean chance(ChoicePoint point, double probability) {
            if (point instanceof ChoicePoint.Crash crash) {
                progress.stepTo(crash.step());
            }
            return choices.chance(point, probability);
        }

        @Override
        public long between(ChoicePoint point, long min, long max) {
            return choices.between(point, min, max);
        }

        @Override
        public long bits(ChoicePoint point) {
            return choices.bits(point);
        }
    }

    /** The settings a command's example or cluster options describe, and the run in words. */
    record Target(SimulationSettings.Builder builder, String what) {
    }

    /**
     * The settings of an {@code EXAMPLE} (with {@code --nodes}, {@code --bug}, {@code --arg}) or a {@code --cluster}
     * file (with {@code --driver}), under the fault options; shared by {@code simulate} and {@code explore}.
     */
    static Target target(CommandLine.Model.CommandSpec spec, String example, Path cluster, String driverId, Integer nodes,
                         String bug, Map<String, String> nodeArgs, FaultOptions faults) {
        if ((example == null) == (cluster == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give either an EXAMPLE or --cluster FILE (see 'deja " + spec.name() + " --help')");
        }
        if (cluster != null) {
            if (nodes != null || bug != null || !nodeArgs.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--nodes, --bug and --arg are for examples; with --cluster, the cluster file says them");
            }
            return new Target(clusterSettings(ClusterSpec.read(cluster), cluster, driverId, faults), cluster.toString());
        }
        Example chosen = Examples.byName(example).orElseThrow(() -> new IllegalArgumentException("unknown example '"
                + example + "'; the examples are: " + String.join(", ", Examples.all().stream().map(Example::name).toList())));
        int count = nodes == null ? chosen.defaultNodes() : nodes;
        SimulationSettings.Builder builder = ExampleSimulation.settings(chosen, count, Optional.ofNullable(bug), nodeArgs);
        builder.faults(faults.applyTo(SIMULATION_DEFAULTS));
        return new Target(builder, chosen.name() + (bug == null ? "" : " with bug " + bug));
    }

    /** The simulator's faults when none are given: none but a network delay of 1..10 ms. */
    static final FaultModel SIMULATION_DEFAULTS = FaultModel.builder().delayMillis(1, 10).build();

    /**
     * The settings of a user's cluster file: its nodes with their classes and arguments, its workload client as
     * the driver, and its faults under the options given here. A deployment's delay is on top of TCP's; with none
     * in the file the simulator's default network delay applies. Kill and restart times are left out with a note.
     */
    private static SimulationSettings.Builder clusterSettings(ClusterSpec clusterSpec, Path cluster, String driverId,
                                                              FaultOptions faults) {
        SimulationSettings.Builder builder = SimulationSettings.builder();
        clusterSpec.nodes().forEach((id, member) -> builder.node(id, member.nodeClass(), member.args()));
        Optional<NodeId> driver = Optional.empty();
        if (driverId != null) {
            driver = Optional.of(new NodeId(driverId));
            if (!clusterSpec.clients().containsKey(driver.get())) {
                throw new IllegalArgumentException("--driver " + driverId + ": not a client of " + cluster);
            }
        } else if (clusterSpec.clients().size() > 1) {
            throw new IllegalArgumentException(cluster + " has " + clusterSpec.clients().size()
                    + " clients; say which one drives the workload with --driver ID");
        } else {
            driver = clusterSpec.clients().keySet().stream().findFirst();
        }
        driver.ifPresent(id -> builder.driver(id, clusterSpec.clients().get(id).nodeClass()));
        FaultModel.Builder base = clusterSpec.faults().toBuilder();
        FaultModel fromFile = clusterSpec.faults();
        if (!fromFile.scheduled().isEmpty()) {
            System.out.println("deja: " + cluster + "'s kill/restart times " + fromFile.scheduled()
                    + " are for deployments; the simulator crashes nodes with --crash-rate");
            base = FaultModel.builder().dropProbability(fromFile.dropProbability())
                    .duplicateProbability(fromFile.duplicateProbability())
                    .delayMillis(fromFile.minDelayMillis(), fromFile.maxDelayMillis()).crashRate(fromFile.crashRate())
                    .restartDelayMillis(fromFile.restartDelayMillis()).clockSkewMillis(fromFile.clockSkewMillis());
            fromFile.partitions().forEach(base::partition);
        }
        if (fromFile.maxDelayMillis() == 0) {
            base.delayMillis(SIMULATION_DEFAULTS.minDelayMillis(), SIMULATION_DEFAULTS.maxDelayMillis());
        }
        builder.faults(faults.applyTo(base.build()));
        return builder;
    }

    private static String ending(SimulationResult.Ending ending) {
        return switch (ending) {
            case DRIVER_FINISHED -> "the workload finished";
            case STEP_LIMIT -> "step limit reached";
            case TIME_LIMIT -> "virtual time limit reached";
            case QUIESCENT -> "nothing left to happen";
            case STOPPED -> "the schedule's last step reached";
        };
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
