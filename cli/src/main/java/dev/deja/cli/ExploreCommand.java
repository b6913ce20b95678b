package dev.deja.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.deja.explore.CriticalTransition;
import dev.deja.explore.Exploration;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.explore.FaultBudget;
import dev.deja.explore.Finding;
import dev.deja.explore.Liveness;
import dev.deja.explore.LivenessSearch;
import dev.deja.explore.Strategy;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.TraceStart;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Searches an example's or a cluster file's simulated runs for the ones that break a predicate script. */
@Command(name = "explore", mixinStandardHelpOptions = true,
        description = {"Search the simulated runs of an example, or of your own cluster file, for runs that break the "
                + "predicates of a script: every choice (which event runs next, which message is lost or duplicated, "
                + "which node crashes) is a branch point. Paths run in memory; for each violated predicate the shortest "
                + "violating path is written as a trace (open it with check, view, replay, dump) and as a schedule "
                + "('deja simulate ... --schedule FILE' writes the same trace again).",
                "Exit status: 0 no violation, 1 a predicate was violated (or failed), 2 an error."},
        footer = {"", "Examples:",
                "  ./deja explore paxos --nodes 3 --bug latest-response --script scripts/paxos.py --strategy pos \\",
                "      --paths 2000 --out explore/paxos",
                "  ./deja explore paxos --nodes 3 --script scripts/paxos.py --strategy dpor --max-drops 1 \\",
                "      --out explore/dpor",
                "  ./deja explore --cluster cluster.json --classpath app.jar --script my.py --budget 10m \\",
                "      --out explore/mine",
                "  ./deja explore chord --nodes 5 --bug succ-succ-hash --script scripts/liveness/chord_all_nodes.py \\",
                "      --paths 1 --max-depth 1500 --walks 3 --out explore/chord",
                "  ./deja explore --from traces/sim --at 40 --script scripts/paxos.py --drop 0.3 --delay 1ms..100ms \\",
                "      --paths 200 --out explore/from"})
public final class ExploreCommand implements Callable<Integer> {
    @Parameters(paramLabel = "EXAMPLE", arity = "0..1", completionCandidates = DeployCommand.ExampleNames.class,
            description = "The example to explore: ${COMPLETION-CANDIDATES} (see 'deja examples'); or give --cluster.")
    String example;

    @Option(names = "--cluster", paramLabel = "FILE", description = "Your cluster file instead of an example.")
    Path cluster;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @Option(names = "--driver", paramLabel = "ID", description = "With --cluster: the client that drives the workload.")
    String driverId;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (default: the example's).")
    Integer nodes;

    @Option(names = "--bug", paramLabel = "NAME", description = "Switch on one of the example's bugs.")
    String bug;

    @Option(names = "--arg", paramLabel = "KEY=VALUE", description = "An argument for every cluster node (repeatable).")
    Map<String, String> nodeArgs = new LinkedHashMap<>();

    @Mixin
    FaultOptions faults = new FaultOptions();

    @Mixin
    FromTraceOptions fromTrace = new FromTraceOptions();

    @Mixin
    NoDaemonOption noDaemon;

    @Option(names = "--script", paramLabel = "S.py", description = "The predicate script evaluated after every step "
            + "(without one, paths are only run, for speed).")
    Path script;

    @Option(names = "--strategy", paramLabel = "NAME", defaultValue = "random",
            description = "random, dfs, dpor, pct or pos (default: ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "Seed of every random answer (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--paths", paramLabel = "N", description = "Stop after N paths (default: 1000 unless --budget is given).")
    Long paths;

    @Option(names = "--budget", paramLabel = "TIME", converter = Durations.class,
            description = "Stop after TIME of wall-clock time, e.g. 30s or 10m.")
    Duration budget;

    @Option(names = "--max-depth", paramLabel = "K", defaultValue = "10000",
            description = "Most steps a path takes (default: ${DEFAULT-VALUE}).")
    int maxDepth;

    @Option(names = "--search-depth", paramLabel = "D", defaultValue = "1",
            description = "dfs: the first depth bound of iterative deepening, in branching choices (default: ${DEFAULT-VALUE}).")
    int searchDepth;

    @Option(names = "--workers", paramLabel = "N", description = "Threads exploring at once (default: every core; dfs and dpor split their tree into work units).")
    Integer workers;

    @Option(names = "--max-drops", paramLabel = "N", description = "Most messages one path loses (default: unlimited for "
            + "random strategies with --drop, else 0).")
    Integer maxDrops;

    @Option(names = "--max-dups", paramLabel = "N", description = "Most messages one path duplicates (default as --max-drops, with --dup).")
    Integer maxDups;

    @Option(names = "--max-crashes", paramLabel = "N", description = "Most node crashes one path has; crash points follow "
            + "each step of a cluster node (default: 0).")
    int maxCrashes;

    @Option(names = "--max-partitions", paramLabel = "N", description = "Most nodes one path cuts off from the others "
            + "for 1 s of virtual time, right after one of their steps (default: 0).")
    int maxPartitions;

    @Option(names = "--fault-rate", paramLabel = "P", defaultValue = "0.01",
            description = "Random strategies: chance of a crash or partition at each such point within budget, and of a "
                    + "drop or duplicate when --drop/--dup is not given (default: ${DEFAULT-VALUE}).")
    double faultRate;

    @Option(names = "--weights", paramLabel = "KIND=W,...",
            description = "random: relative weights of enabled events by kind, e.g. delivery=4,timer=1,restart=1.")
    String weights;

    @Option(names = "--pct-depth", paramLabel = "D", defaultValue = "3", description = "pct: the bug depth (default: ${DEFAULT-VALUE}).")
    int pctDepth;

    @Option(names = "--window", paramLabel = "TIME", converter = Durations.class,
            description = "Timer error window: events due within TIME of the earliest are all enabled (default: 0 for random, "
                    + "the longest network delay for the others).")
    Duration window;

    @Option(names = "--hash-states", description = "Hash states with random strategies too (dfs and dpor always do).")
    boolean hashStates;

    @Option(names = "--hash-exclude", paramLabel = "CLASS.FIELD", description = "Leave a field out of the state hash (repeatable).")
    List<String> hashExcludes = new ArrayList<>();

    @Option(names = "--stop-at-first", description = "Stop at the first safety violation.")
    boolean stopAtFirst;

    @Option(names = "--virtual-time", paramLabel = "TIME", converter = Durations.class,
            description = "Longest virtual time of a path (default: 60s; with --walks: none, paths are bounded by "
                    + "--max-depth alone).")
    Duration virtualTime;

    @Option(names = "--walks", paramLabel = "K", defaultValue = "0",
            description = "Liveness search: for each @eventually predicate still false at the end of a path, K random "
                    + "walks (up to --max-depth steps) from prefixes of the shortest such path find its critical "
                    + "transition (MaceMC); the violating run and the nearest live run are written as traces "
                    + "(default: ${DEFAULT-VALUE}, no search; MaceMC uses 20 to 60).")
    int walks;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Where the report, the violating paths' traces and their schedules go.")
    Path out;

    @Option(names = "--json", description = "Print the report as JSON instead of a table.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // A bad example, cluster file or script ends in one line and exit code 2 (CommandLines).
        return explore();
    }

    private int explore() {
        if (faults.hasFaultSeed() || faults.hasScheduled()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--fault-seed, --kill and --restart are for 'deja deploy'; explore draws every fault from its choices");
        }
        Strategy chosen;
        try {
            chosen = Strategy.valueOf(strategy.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--strategy " + strategy
                    + ": expected random, dfs, dpor, pct or pos");
        }
        Optional<TraceStart> start = fromTrace.start(spec);
        SimulateCommand.Target target = start.isPresent() && example == null && cluster == null
                ? new SimulateCommand.Target(FromTraceOptions.settingsOf(start.get(), faults),
                        FromTraceOptions.describe(start.get()))
                : SimulateCommand.target(spec, example, cluster, driverId, nodes, bug, nodeArgs, faults);
        if (start.isPresent()) {
            target.builder().stop(SimulationSettings.Stop.AT_LIMIT); // the workload client does not go on
        }
        SimulationSettings.Builder builder = target.builder().seed(seed);
        if (virtualTime != null) {
            builder.maxVirtualMillis(virtualTime.toMillis());
        }
        if (walks < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--walks " + walks + ": expected 0 or more walks");
        }
        if (walks > 0) {
            if (script == null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--walks needs --script: the liveness search judges the script's @eventually predicates");
            }
            // Walks need room: only --max-depth bounds a run, which goes on after the workload finished.
            builder.stop(SimulationSettings.Stop.AT_LIMIT);
            if (virtualTime == null) {
                builder.maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS);
            }
        }
        SimulationSettings settings = builder.build();
        ExploreSettings.Builder explore = ExploreSettings.builder().strategy(chosen).seed(seed)
                .maxPaths(paths != null ? paths : budget != null ? Long.MAX_VALUE : 1000).budget(budget)
                .maxDepth(maxDepth).searchDepth(searchDepth)
                .workers(workers != null ? workers : Runtime.getRuntime().availableProcessors())
                .faults(new FaultBudget(
                        budgetOf(maxDrops, chosen, settings.dropProbability()),
                        budgetOf(maxDups, chosen, settings.duplicateProbability()), maxCrashes, maxPartitions))
                .faultRate(faultRate).pctDepth(pctDepth)
                .windowMillis(window != null ? window.toMillis() : chosen == Strategy.RANDOM ? 0 : settings.maxDelayMillis())
                .hashStates(hashStates).stopAtFirst(stopAtFirst).walks(walks);
        hashExcludes.forEach(explore::hashExclude);
        if (weights != null) {
            parseWeights(weights, explore);
        }
        ExploreSettings exploreSettings = explore.build();
        ClassLoader loader = UserClasspath.loader(classpath);
        AtomicBoolean stop = new AtomicBoolean();
        Explorer.Options options = Explorer.Options.defaults().withClassLoader(loader).withStop(stop);
        if (script != null) {
            if (!Files.isRegularFile(script)) {
                throw new IllegalArgumentException("--script " + script + " is not a file");
            }
            options = options.withScript(script);
        }
        if (start.isPresent()) {
            FromTraceOptions.rebuildOnce(settings, start.get(), loader, "every path starts there");
            options = options.withStart(start.get());
        }
        Exploration run = Explorer.start(settings, exploreSettings, options);
        CountDownLatch reported = new CountDownLatch(1);
        AtomicInteger status = new AtomicInteger(-1);
        // In the warm engine the client catches Ctrl-C and passes it on (Interrupts); the engine's own shutdown is no
        // command's to end.
        boolean relayed = Interrupts.relayed();
        Thread hook = new Thread(() -> {
            stop.set(true);
            try {
                if (reported.await(300, TimeUnit.SECONDS) && status.get() >= 0) {
                    // Ctrl-C: the JVM would end with 130 once this hook returns; the report of what was found so far
                    // is printed, so end with its status instead (0 nothing violated, 1 violations).
                    System.out.flush();
                    System.err.flush();
                    Runtime.getRuntime().halt(status.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "deja-explore-interrupt");
        if (!relayed) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
        // Ctrl-C stops the search and lets this thread write the evidence and the report: under a shutdown (the
        // JVM's default for SIGINT) libraries such as Chronicle refuse to start, so no trace could be written. A
        // second Ctrl-C ends the process at once. SIGTERM still goes through the shutdown hook above.
        Interrupts.Registration interrupt = Interrupts.onInterrupt(() -> {
            stop.set(true);
            System.err.println("explore: stopping (Ctrl-C again to quit at once)");
        });
        try {
            ExploreReport report;
            try (Progress.Poller progress = exploreProgress(run, exploreSettings)) {
                report = run.run();
            }
            String base = reproduceBase();
            java.util.function.BiFunction<Path, Path, String> reproduce = (schedule, trace) -> base + " --seed " + seed
                    + " --schedule " + DeployCommand.quoted(schedule.toString()) + " --out "
                    + DeployCommand.quoted(trace.toString());
            if (walks > 0) {
                // A nearest live run may start from an earlier state of the recording than --at (the critical
                // transition in the replayed part): its command names that position.
                LivenessSearch.Reproduce reproduceFrom = (schedule, trace, from) -> reproduceBase(
                        from.map(TraceStart::position)) + " --seed " + seed + " --schedule "
                        + DeployCommand.quoted(schedule.toString()) + " --out " + DeployCommand.quoted(trace.toString());
                report = searchLiveness(report, settings, exploreSettings, options, reproduceFrom);
            }
            report = Explorer.writeEvidence(report, settings, out, loader, Optional.ofNullable(script), reproduce,
                    options.start());
            writeJson(report, out.resolve("report.json"));
            if (json) {
                System.out.println(toJson(report));
            } else {
                printTable(report, target.what());
            }
            status.set(report.violated() || report.deadStateFound() ? 1 : 0);
            return status.get();
        } finally {
            interrupt.close();
            reported.countDown();
            if (!relayed) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // shutting down (Ctrl-C): the hook is running and has just been released
                }
            }
        }
    }

    /** The budget given, else unlimited for a randomized strategy whose simulator probability is set, else none. */
    private static int budgetOf(Integer given, Strategy strategy, double probability) {
        if (given != null) {
            return given;
        }
        return strategy.randomized() && probability > 0 ? Integer.MAX_VALUE : 0;
    }

    private void parseWeights(String text, ExploreSettings.Builder explore) {
        for (String part : text.split(",")) {
            String[] kv = part.split("=", 2);
            try {
                explore.weight(ChoicePoint.EventKind.valueOf(kv[0].strip().toUpperCase(Locale.ROOT)), Double.parseDouble(kv[1]));
            } catch (RuntimeException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--weights " + text
                        + ": expected KIND=WEIGHT,... with kinds delivery, timer, restart, e.g. delivery=4,timer=1");
            }
        }
    }

    /** The simulate command that makes the same cluster: this command's target and fault options, nothing else. */
    private String reproduceBase() {
        return reproduceBase(Optional.empty());
    }

    /** As {@link #reproduceBase()}, with {@code --at} naming {@code at} instead of the position given, when present. */
    private String reproduceBase(Optional<Long> at) {
        List<String> kept = new ArrayList<>();
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        java.util.Set<String> targetOptions = java.util.Set.of("--cluster", "--classpath", "--driver", "--nodes", "--bug",
                "--arg", "--drop", "--dup", "--delay", "--partition", "--crash-rate", "--restart-delay", "--clock-skew",
                "--virtual-time", "--from", "--at");
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg.contains("=") && arg.startsWith("--") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (!arg.startsWith("-") && example != null && arg.equals(example) && kept.stream().noneMatch(example::equals)) {
                kept.add(arg);
            } else if (name.equals("--at") && at.isPresent()) {
                kept.add("--at " + at.get());
                if (!arg.contains("=")) {
                    i++;
                }
            } else if (targetOptions.contains(name)) {
                kept.add(DeployCommand.quoted(arg));
                if (!arg.contains("=") && i + 1 < args.size()) {
                    kept.add(DeployCommand.quoted(args.get(++i)));
                }
            } else if (arg.startsWith("--") && !arg.contains("=") && i + 1 < args.size() && !args.get(i + 1).startsWith("--")
                    && takesValue(name)) {
                i++; // an explore option's value
            }
        }
        if (walks > 0) {
            kept.add("--steps " + maxDepth + " --until-limit");
        }
        return "./deja simulate " + String.join(" ", kept);
    }

    /**
     * The liveness search of every @eventually predicate with a suspected path, one after the other, each with a
     * progress bar; each critical transition's violating and nearest live runs are written as traces.
     */
    private ExploreReport searchLiveness(ExploreReport report, SimulationSettings settings, ExploreSettings explore,
                                         Explorer.Options options, LivenessSearch.Reproduce reproduce) {
        List<Liveness> out = new ArrayList<>();
        for (Liveness liveness : report.liveness()) {
            Optional<LivenessSearch> search = options.stop().get() ? Optional.empty()
                    : LivenessSearch.forSuspect(report, liveness, settings, explore, options);
            if (search.isEmpty()) {
                out.add(liveness);
                continue;
            }
            CriticalTransition found;
            try (Progress.Poller progress = livenessProgress(search.get(), liveness.predicate())) {
                found = search.get().run();
            }
            found = LivenessSearch.writeEvidence(found, settings, this.out, options.classLoader(), reproduce,
                    (violating, live) -> "./deja view " + DeployCommand.quoted(violating.toString()) + " --compare "
                            + DeployCommand.quoted(live.toString()), options.start());
            out.add(liveness.withCritical(found));
        }
        return report.withLiveness(out);
    }

    private boolean takesValue(String option) {
        CommandLine.Model.OptionSpec found = spec.findOption(option);
        return found != null && found.arity().max() > 0;
    }

    private void printTable(ExploreReport report, String what) {
        System.out.printf(Locale.ROOT, "deja: explored %s with %s, seed %d, %d worker(s): %,d paths, %,d steps in %.1f s "
                        + "(%,.0f steps/s, %,.0f per CPU second, %,.1f paths/s); deepest path %,d steps; %s%n",
                what, report.strategy().cliName(), report.seed(), report.workers(), report.paths(), report.steps(),
                report.elapsed().toNanos() / 1e9, report.stepsPerSecond(), report.stepsPerCpuSecond(),
                report.pathsPerSecond(), report.deepestPath(), ending(report.ending()));
        if (report.statesVisited() > 0) {
            System.out.printf(Locale.ROOT, "deja: states: %,d visited, %,d distinct%n", report.statesVisited(),
                    report.distinctStates());
        }
        if (!report.search().isEmpty()) {
            System.out.println("deja: search: " + report.search());
        }
        printLiveness(report);
        if (report.findings().isEmpty()) {
            System.out.println("deja: no predicate was violated" + (script == null ? " (no --script given)" : ""));
            return;
        }
        System.out.printf("%-28s %-22s %8s %10s %-6s %-30s %9s%n", "predicate", "found", "paths", "steps", "node", "event",
                "position");
        for (Finding finding : report.findings()) {
            System.out.printf(Locale.ROOT, "%-28s %-22s %,8d %,10d %-6s %-30s %9s%n", finding.predicate(), kind(finding.kind()),
                    finding.paths(), finding.steps(), finding.node(), finding.event(),
                    finding.evidence().map(e -> e.position() < 0 ? "-" : Long.toString(e.position())).orElse("-"));
        }
        for (Finding finding : report.findings()) {
            finding.evidence().ifPresent(evidence -> {
                System.out.println();
                System.out.println(finding.predicate() + " (" + kind(finding.kind()) + ", shortest path " + finding.path()
                        + ", " + finding.steps() + " steps)" + (finding.aux().isEmpty() ? "" : " aux " + finding.aux())
                        + (finding.message().isEmpty() ? "" : ": " + finding.message()));
                System.out.println("  trace:     " + evidence.trace());
                System.out.println("  schedule:  " + evidence.schedule());
                System.out.println("  reproduce: " + evidence.command());
                if (script != null) {
                    System.out.println("  check:     ./deja check " + evidence.trace() + " " + script
                            + (classpath != null ? " --classpath " + DeployCommand.quoted(classpath) : ""));
                }
            });
        }
    }

    /** Per @eventually predicate: the share of paths live for good by each depth, and the critical transitions. */
    private void printLiveness(ExploreReport report) {
        if (report.liveness().isEmpty()) {
            return;
        }
        List<Liveness.DepthShare> header = report.liveness().getFirst().byDepth();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-28s %8s %9s", "live for good by depth",
                "paths", "suspected"));
        for (Liveness.DepthShare share : header) {
            line.append(String.format(Locale.ROOT, " %6s", compact(share.depth())));
        }
        System.out.println(line);
        for (Liveness liveness : report.liveness()) {
            line = new StringBuilder(String.format(Locale.ROOT, "%-28s %,8d %,9d", liveness.predicate(), liveness.paths(),
                    liveness.suspected()));
            for (Liveness.DepthShare share : liveness.byDepth()) {
                line.append(String.format(Locale.ROOT, " %5.0f%%", 100 * liveness.share(share)));
            }
            System.out.println(line);
        }
        for (Liveness liveness : report.liveness()) {
            liveness.critical().ifPresent(found -> {
                System.out.println();
                System.out.printf(Locale.ROOT, "%s: critical transition at step %,d (%s), %s %s%s%n", found.predicate(),
                        found.step(), verdict(found), found.node(), found.event(),
                        found.message().isEmpty() ? "" : " (message " + found.message() + ")");
                System.out.printf(Locale.ROOT, "  walks:     %d per prefix, dmax %,d; false to the end from step %,d; "
                                + "last recoverable prefix %s; %,d walks, %,d steps in all%n", found.walks(),
                        found.maxDepth(), found.nonLiveFrom(), found.lastRecoverable() < 0 ? "none known"
                                : String.format(Locale.ROOT, "%,d", found.lastRecoverable()), found.totalWalks(),
                        found.totalSteps());
                for (CriticalTransition.Probe probe : found.probes()) {
                    System.out.printf(Locale.ROOT, "  prefix %,9d: %s%n", probe.prefix(), probe.recovers()
                            ? String.format(Locale.ROOT, "live at step %,d on walk %d of at most %d", probe.liveAtStep(),
                                    probe.walks(), found.walks())
                            : String.format(Locale.ROOT, "dead (none of %d walks live)", probe.walks()));
                }
                found.evidence().ifPresent(evidence -> {
                    System.out.println("  violating: " + evidence.violatingTrace());
                    evidence.violatingCommand().ifPresent(c -> System.out.println("  reproduce: " + c));
                    evidence.liveTrace().ifPresent(t -> System.out.println("  nearest live run: " + t
                            + found.nearestLive().map(w -> String.format(Locale.ROOT, " (from prefix %,d, live at step %,d)",
                            w.prefix(), w.liveAtStep())).orElse("")));
                    evidence.liveCommand().ifPresent(c -> System.out.println("  reproduce: " + c));
                    evidence.compareCommand().ifPresent(c -> System.out.println("  compare:   " + c));
                });
            });
        }
        System.out.println();
    }

    private static String verdict(CriticalTransition found) {
        return found.verdict() == CriticalTransition.Verdict.C1_DEAD
                ? "C1: dead after it, no walk from there reached a live state"
                : "C2: inconclusive, raise --max-depth";
    }

    private static String compact(long depth) {
        return depth >= 1000 && depth % 1000 == 0 ? depth / 1000 + "k" : Long.toString(depth);
    }

    private static String kind(Finding.Kind kind) {
        return switch (kind) {
            case SAFETY -> "violated (safety)";
            case EVENTUALLY_OPEN_AT_END -> "false at end of path";
            case ERROR -> "error";
        };
    }

    private static String ending(ExploreReport.Ending ending) {
        return switch (ending) {
            case EXHAUSTED -> "every path explored";
            case PATH_LIMIT -> "path limit reached";
            case BUDGET -> "time budget used";
            case FIRST_VIOLATION -> "stopped at the first violation";
            case INTERRUPTED -> "interrupted";
        };
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private static Map<String, Object> jsonOf(ExploreReport report) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("strategy", report.strategy().cliName());
        out.put("seed", report.seed());
        out.put("workers", report.workers());
        out.put("paths", report.paths());
        out.put("steps", report.steps());
        out.put("statesVisited", report.statesVisited());
        out.put("distinctStates", report.distinctStates());
        out.put("deepestPath", report.deepestPath());
        out.put("elapsedMillis", report.elapsed().toMillis());
        out.put("stepsPerSecond", Math.round(report.stepsPerSecond()));
        out.put("cpuMillis", report.cpu().toMillis());
        out.put("stepsPerCpuSecond", Math.round(report.stepsPerCpuSecond()));
        out.put("pathsPerSecond", Math.round(report.pathsPerSecond() * 10) / 10.0);
        out.put("ending", report.ending().name().toLowerCase(Locale.ROOT));
        out.put("search", report.search());
        out.put("predicates", report.predicates());
        List<Map<String, Object>> findings = new ArrayList<>();
        for (Finding finding : report.findings()) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("predicate", finding.predicate());
            f.put("kind", finding.kind().name().toLowerCase(Locale.ROOT));
            f.put("paths", finding.paths());
            f.put("shortestPath", finding.path());
            f.put("steps", finding.steps());
            f.put("node", finding.node());
            f.put("event", finding.event());
            f.put("seq", finding.seq());
            f.put("message", finding.message());
            f.put("aux", finding.aux());
            finding.evidence().ifPresent(e -> {
                f.put("position", e.position());
                f.put("stepEntryPosition", e.stepEntry());
                f.put("trace", e.trace());
                f.put("schedule", e.schedule());
                f.put("reproduce", e.command());
            });
            findings.add(f);
        }
        out.put("findings", findings);
        List<Map<String, Object>> live = new ArrayList<>();
        for (Liveness liveness : report.liveness()) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("predicate", liveness.predicate());
            l.put("paths", liveness.paths());
            l.put("suspected", liveness.suspected());
            l.put("nonLiveFrom", liveness.nonLiveFrom());
            List<Map<String, Object>> shares = new ArrayList<>();
            for (Liveness.DepthShare share : liveness.byDepth()) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("depth", share.depth());
                d.put("livePaths", share.paths());
                d.put("share", Math.round(liveness.share(share) * 10000) / 10000.0);
                shares.add(d);
            }
            l.put("liveByDepth", shares);
            liveness.critical().ifPresent(found -> l.put("criticalTransition", jsonOf(found)));
            live.add(l);
        }
        out.put("liveness", live);
        return out;
    }

    private static Map<String, Object> jsonOf(CriticalTransition found) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("verdict", found.verdict().label());
        c.put("step", found.step());
        c.put("node", found.node());
        c.put("event", found.event());
        c.put("message", found.message());
        c.put("lastRecoverable", found.lastRecoverable());
        c.put("nonLiveFrom", found.nonLiveFrom());
        c.put("walks", found.walks());
        c.put("maxDepth", found.maxDepth());
        c.put("totalWalks", found.totalWalks());
        c.put("totalSteps", found.totalSteps());
        List<Map<String, Object>> probes = new ArrayList<>();
        for (CriticalTransition.Probe probe : found.probes()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("prefix", probe.prefix());
            p.put("walks", probe.walks());
            p.put("live", probe.live());
            p.put("liveAtStep", probe.liveAtStep());
            p.put("steps", probe.steps());
            probes.add(p);
        }
        c.put("probes", probes);
        found.nearestLive().ifPresent(w -> {
            Map<String, Object> live = new LinkedHashMap<>();
            live.put("prefix", w.prefix());
            live.put("liveAtStep", w.liveAtStep());
            w.start().ifPresent(start -> live.put("fromPosition", start.position()));
            c.put("nearestLive", live);
        });
        found.evidence().ifPresent(e -> {
            c.put("violatingTrace", e.violatingTrace());
            e.violatingSchedule().ifPresent(t -> c.put("violatingSchedule", t));
            e.violatingCommand().ifPresent(t -> c.put("violatingReproduce", t));
            e.liveTrace().ifPresent(t -> c.put("liveTrace", t));
            e.liveSchedule().ifPresent(t -> c.put("liveSchedule", t));
            e.liveCommand().ifPresent(t -> c.put("liveReproduce", t));
            e.compareCommand().ifPresent(t -> c.put("compare", t));
        });
        return c;
    }

    private static String toJson(ExploreReport report) {
        try {
            return JSON.writeValueAsString(jsonOf(report));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeJson(ExploreReport report, Path file) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, toJson(report) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** The liveness search's progress: walks, prefixes probed and steps/s. */
    private static Progress.Poller livenessProgress(LivenessSearch search, String predicate) {
        return Progress.polling("liveness " + predicate, Progress.UNKNOWN_TOTAL, "walks", progress -> {
            LivenessSearch.Counters c = search.counters();
            double seconds = Math.max(1e-9, c.elapsed().toNanos() / 1e9);
            progress.stepTo(c.walks());
            progress.note(String.format(Locale.ROOT, "%d prefixes probed, %,d walks, %,.0f steps/s",
                    c.probes(), c.walks(), c.steps() / seconds));
        });
    }

    /**
     * The exploration's progress: paths (or seconds of the budget), steps/s, distinct states, the deepest path and
     * violating paths.
     */
    private static Progress.Poller exploreProgress(Exploration run, ExploreSettings settings) {
        boolean byTime = settings.budget() != null;
        long total = byTime ? settings.budget().toSeconds()
                : settings.maxPaths() == Long.MAX_VALUE ? Progress.UNKNOWN_TOTAL : settings.maxPaths();
        return Progress.polling("explore", total, byTime ? "s" : "paths", progress -> {
            Exploration.Counters c = run.counters();
            double seconds = Math.max(1e-9, c.elapsed().toNanos() / 1e9);
            progress.stepTo(byTime ? c.elapsed().toSeconds() : c.paths());
            progress.note(String.format(Locale.ROOT, "%,d paths, %,.0f steps/s, %,d states, deepest %,d, %d violating",
                    c.paths(), c.steps() / seconds, c.distinctStates(), c.deepestPath(), c.violatingPaths()));
        });
    }
}
