package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.replay.ReplayException;
import dev.deja.sim.RecordedNetwork;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import dev.deja.sim.TraceStart;
import dev.deja.trace.Event;
import dev.deja.trace.TraceEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --from TRACE --at POSITION}: start a simulated run (explore's paths, simulate's one run) from the state a
 * recorded trace reached, rebuilt by replay, instead of booting the cluster.
 */
public final class FromTraceOptions {
    @Option(names = "--from", paramLabel = "TRACE",
            description = "Start from the state this recorded trace (deploy's or simulate's) reached at --at, rebuilt by "
                    + "replay: its nodes go on under the simulator, messages sent and not yet received stay in flight, "
                    + "pending timers stay pending; the workload client does not go on. The network is the recorded "
                    + "run's (trace.json of simulate, else delays measured on the logs), changed by --drop, --dup, --delay. "
                    + "No EXAMPLE or --cluster needed (give one for its faults).")
    Path from;

    @Option(names = "--at", paramLabel = "POSITION",
            description = "With --from: the entry after which to go on, numbered as 'deja check' and 'deja view' number "
                    + "them (0 is the first entry); a handler call begun there is replayed whole.")
    Long at;

    /** The start the options name, read into memory, or empty without {@code --from}. */
    Optional<TraceStart> start(CommandLine.Model.CommandSpec spec) {
        if (from == null) {
            if (at != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--at " + at + " needs --from TRACE");
            }
            return Optional.empty();
        }
        if (at == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--from " + from
                    + " needs --at POSITION (the entry after which to go on; 'deja check' and 'deja view' show positions)");
        }
        if (!Files.isDirectory(from)) {
            throw new IllegalArgumentException("--from " + from + ": no such trace directory");
        }
        return Optional.of(TraceStart.of(from, at));
    }

    /**
     * Settings for the recorded nodes alone (their classes and arguments as their logs' start entries give them), on
     * the recorded run's network ({@link RecordedNetwork}) with the fault options given on top.
     */
    static SimulationSettings.Builder settingsOf(TraceStart start, NetworkFaultOptions faults) {
        SimulationSettings.Builder builder = SimulationSettings.builder().stop(SimulationSettings.Stop.AT_LIMIT);
        for (Map.Entry<NodeId, List<TraceEvent>> log : start.recording().logs().entrySet()) {
            log.getValue().stream().filter(e -> e.event() instanceof Event.Start).findFirst().ifPresent(e -> {
                Event.Start first = (Event.Start) e.event();
                builder.node(log.getKey(), first.nodeClass(), first.args());
            });
        }
        builder.faults(faults.applyTo(RecordedNetwork.of(start.recording()).applyTo(SimulateCommand.SIMULATION_DEFAULTS)));
        return builder;
    }

    /** How the target reads in a summary line. */
    static String describe(TraceStart start) {
        return "the state of " + start.trace() + " at position " + start.position();
    }

    /**
     * Rebuilds the state once, before the real work, so that a trace that diverges in replay or names classes not on
     * the classpath fails in one line (exit 2) rather than on a worker; prints what was rebuilt and how long it took.
     */
    static void rebuildOnce(SimulationSettings settings, TraceStart start, ClassLoader loader, String then) {
        long[] replayed = {0};
        long startNanos = System.nanoTime();
        try {
            Simulator.runInMemory(settings, Simulator.Options.of(settings).withClassLoader(loader).withStart(start)
                    .withObserver(new StepObserver() {
                        @Override
                        public boolean replayedStep(SimulatedStep step, View view) {
                            replayed[0] = step.step() + 1;
                            return true;
                        }

                        @Override
                        public boolean afterStep(SimulatedStep step, View view) {
                            return false;
                        }
                    }));
        } catch (ReplayException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        System.out.printf(Locale.ROOT, "deja: rebuilt the state of %s at position %d by replaying %d of its %d handler "
                        + "calls in %.0f ms; %s%n", start.trace(), start.position(), replayed[0],
                start.recording().handlerCalls(), (System.nanoTime() - startNanos) / 1e6, then);
    }
}
