package dev.deja.cli;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.main.DejaCli;
import dev.deja.runtime.Deployment;
import dev.deja.view.Viewer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The tour: deploy the buggy Paxos on loopback with recording, check the trace with {@code scripts/paxos.py},
 * print the violations, and open the viewer at the first one (or render it to a PNG without a display).
 * Runs the other subcommands exactly as a user would, so what it shows is what they do.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Deploy a 7-node Paxos with the paper's bug (latest-response) on loopback with 30%% message "
                + "loss, recording it; check the trace with scripts/paxos.py; print the violations; open the viewer "
                + "at the first one, or write a PNG of it when there is no display.",
                "The bug needs an unlucky interleaving, so a run that comes out clean is deployed again, up to --attempts times;"
                        + " if none shows it, or a deployment fails (e.g. the nodes do not start in time on a loaded "
                        + "machine), a simulated run that shows it (seed 22) is checked and viewed instead, and the demo says so."},
        footer = {"", "Examples:", "  ./deja demo", "  ./deja demo --out traces/demo2 --start-timeout 5m --no-view"})
public final class DemoCommand implements Callable<Integer> {
    /** A seed on which the simulated paper setting shows the latest-response bug (see CheckerPaxosIT). */
    static final long SIMULATED_SEED = 22;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "traces/demo",
            description = "Where the traces, the report and the picture go; must not exist or be empty (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--attempts", paramLabel = "N", defaultValue = "4", converter = Converters.PositiveCount.class,
            description = "Deployments to try until one shows the bug (default: ${DEFAULT-VALUE}).")
    int attempts;

    @Option(names = "--start-timeout", paramLabel = "TIME", converter = Durations.class,
            description = "How long the 7 node JVMs get, together, to start listening (default: scaled to this "
                    + "machine's cores and load average, at least 60 s). When they do not make it, the demo "
                    + "simulates instead.")
    Duration startTimeout;

    @Option(names = "--script", paramLabel = "FILE",
            description = "The predicate script (default: scripts/paxos.py of this Deja).")
    Path script;

    @Option(names = "--png", description = "Write a PNG instead of opening a window, even when there is a display.")
    boolean png;

    @Option(names = "--no-view", description = "Stop after printing the violations.")
    boolean noView;

    @Override
    public Integer call() throws Exception {
        Path scriptFile = script();
        if (!Files.isRegularFile(scriptFile)) {
            throw new UsageException("no predicate script at " + scriptFile);
        }
        if (Files.exists(out)) {
            try (var entries = Files.list(out)) {
                if (entries.findAny().isPresent()) {
                    throw new UsageException("--out " + out + " already holds files; choose a new directory");
                }
            }
        }
        Files.createDirectories(out);
        for (int attempt = 1; attempt <= attempts; attempt++) {
            Path trace = out.resolve("run-" + attempt);
            Path report = out.resolve("run-" + attempt + "-report.json");
            System.out.printf("%n== deja demo, run %d of at most %d: ./deja deploy paxos --nodes 7 --drop 0.3 --bug latest-response --out %s%n",
                    attempt, attempts, trace);
            Deployment.Plan plan = ExampleDeployment.builder(new PaxosExample()).nodes(7).bug("latest-response")
                    .dropProbability(0.3).duration(Duration.ofSeconds(20)).record(trace)
                    .workDirectory(out.resolve("run-" + attempt + "-work"))
                    .command("./deja demo (run " + attempt + ")").build().plan();
            Deployment deployment = new Deployment(plan, System.out);
            if (startTimeout != null) {
                deployment.startTimeout(startTimeout);
            }
            try {
                DeploymentProgress.run(deployment, plan.duration(), plan.cluster().nodes().size());
            } catch (IOException | RuntimeException e) {
                // Whatever stopped the deployment (nodes too slow to start on a loaded machine, a port taken, a
                // node that crashed), the simulator shows the same bug without processes or ports.
                System.out.println("deja demo: the deployment failed: " + e.getMessage());
                return simulateInstead("the deployment did not run (above)");
            }
            System.out.printf("%n== ./deja check %s %s --json %s%n", trace, scriptFile, report);
            int checked = run("check", trace.toString(), scriptFile.toString(), "--json", report.toString());
            if (checked != ExitCodes.OK && checked != ExitCodes.FINDINGS) {
                System.out.println("deja demo: the check failed (above); stopping");
                return checked;
            }
            CheckReport result = CheckReport.read(report);
            if (result.violations().isEmpty()) {
                System.out.println("deja demo: this run came out clean: the bug needs a message loss at the wrong moment. Deploying again.");
                continue;
            }
            Violation first = result.violations().getFirst();
            System.out.printf("%ndeja demo: run %d broke Paxos: %s at position %d (node %s, Lamport %d).%n", attempt,
                    first.predicate(), first.event().position(), first.event().node(), first.event().lamport());
            System.out.println("deja demo: to check this trace again yourself:  ./deja check " + trace + " " + scriptFile);
            if (noView) {
                return ExitCodes.OK;
            }
            return view(trace, report, first.event().position());
        }
        return simulateInstead("none of " + attempts + " deployments showed the bug (it needs a message loss and a"
                + " late answer at the wrong moment)");
    }

    /**
     * The bug needs an unlucky interleaving that a loopback network gives rarely, and a loaded machine may not start
     * seven JVMs in time; the simulator finds the bug at once, and its trace is checked and viewed exactly like a
     * deployment's.
     */
    private int simulateInstead(String why) throws Exception {
        Path trace = out.resolve("simulated");
        Path report = out.resolve("simulated-report.json");
        String simulate = "simulate paxos --nodes 7 --bug latest-response --seed " + SIMULATED_SEED
                + " --drop 0.3 --delay 1ms..100ms --out " + trace;
        System.out.printf("%ndeja demo: %s. The deterministic simulator shows the bug on seed %d:%n== ./deja %s%n", why,
                SIMULATED_SEED, simulate);
        int simulated = run(simulate.split(" "));
        if (simulated != ExitCodes.OK) {
            System.out.println("deja demo: the simulation failed (above); stopping");
            return simulated;
        }
        System.out.printf("%n== ./deja check %s %s --json %s%n", trace, script(), report);
        int checked = run("check", trace.toString(), script().toString(), "--json", report.toString());
        if (checked != ExitCodes.FINDINGS) {
            System.out.println("deja demo: the simulated run did not show the bug; this is a defect of Deja");
            return ExitCodes.INTERNAL;
        }
        Violation first = CheckReport.read(report).violations().getFirst();
        System.out.printf("%ndeja demo: the simulated run broke Paxos: %s at position %d (node %s, Lamport %d).%n",
                first.predicate(), first.event().position(), first.event().node(), first.event().lamport());
        System.out.println("deja demo: to check this trace again yourself:  ./deja check " + trace + " " + script());
        return noView ? ExitCodes.OK : view(trace, report, first.event().position());
    }

    private Path script() {
        return script != null ? script : Installation.file(new PaxosExample().script().orElseThrow().toString());
    }

    private int view(Path trace, Path report, long position) {
        if (!DejaCli.commandLine().getSubcommands().containsKey("view")) {
            System.out.println("deja demo: this build has no viewer yet; inspect the state at the violation with:");
            System.out.println("  ./deja sql " + trace + " \"SELECT * FROM Agent_history WHERE valid_from <= " + position
                    + " AND (valid_to IS NULL OR valid_to > " + position + ")\"");
            return 0;
        }
        // Not GraphicsEnvironment.isHeadless(): the launcher runs every JVM with java.awt.headless=true, and the
        // viewer is JavaFX, which needs only a display.
        if (png || !Viewer.displayAvailable()) {
            Path picture = out.resolve("first-violation.png");
            List<String> args = new ArrayList<>(List.of("view", trace.toString(), "--report", report.toString(),
                    "--png", picture.toString(), "--from", Long.toString(Math.max(0, position - 60)),
                    "--to", Long.toString(position + 20)));
            int code = run(args.toArray(String[]::new));
            if (code == 0) {
                System.out.println("deja demo: no display, so the message-flow graph around the violation is in " + picture.toAbsolutePath());
                System.out.println("deja demo: on a desktop, open it at the violation with:  ./deja view " + trace
                        + " --report " + report + " --at " + position);
            }
            return code;
        }
        System.out.println("deja demo: opening the viewer at position " + position);
        return run("view", trace.toString(), "--report", report.toString(), "--at", Long.toString(position));
    }

    private static int run(String... args) {
        CommandLine line = DejaCli.commandLine();
        return line.execute(args);
    }
}
