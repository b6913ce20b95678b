package dev.deja.explore.internal;

import dev.deja.check.CheckReport;
import dev.deja.check.Checker;
import dev.deja.check.InMemoryStateHistory;
import dev.deja.check.Violation;
import dev.deja.explore.ExploreReport;
import dev.deja.explore.Finding;
import dev.deja.node.NodeId;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import dev.deja.replay.MergedTrace;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Turns findings into files: each finding's schedule is run again with a trace directory (the same answers give the
 * same run), the answers are written with comments saying what each one chose, and the finding's step is located in
 * the trace's merged order (the order the simulator ran it in, which the trace records), as {@code deja check} and
 * {@code deja replay} number it.
 */
public final class Evidence {
    private Evidence() {
    }

    public static ExploreReport write(ExploreReport report, SimulationSettings settings, Path directory, ClassLoader loader,
                                      Optional<Path> script, BiFunction<Path, Path, String> command,
                                      Optional<TraceStart> start) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory + ": " + e.getMessage(), e);
        }
        List<Finding> out = new ArrayList<>();
        for (Finding finding : report.findings()) {
            String base = finding.predicate() + (finding.kind() == Finding.Kind.SAFETY ? ""
                    : "-" + finding.kind().name().toLowerCase(Locale.ROOT).replace('_', '-'));
            Path schedulePath = directory.resolve(base + ".schedule");
            Path tracePath = directory.resolve(base + ".trace");
            String reproduce = command.apply(schedulePath, tracePath);
            Schedule commented = rerun(settings, finding.schedule(), tracePath, loader, reproduce, start);
            commented.write(schedulePath);
            long stepEntry = finding.seq() < 0 ? -1
                    : position(tracePath, new NodeId(finding.node()), finding.seq(), finding.lamport());
            long position = stepEntry;
            if (script.isPresent() && finding.kind() != Finding.Kind.EVENTUALLY_OPEN_AT_END) {
                position = checkedPosition(tracePath, script.get(), loader, finding);
            }
            out.add(finding.withEvidence(new Finding.Evidence(tracePath.toString(), schedulePath.toString(), position,
                    stepEntry, reproduce)));
        }
        return report.withFindings(out);
    }

    /** Where {@code deja check} reports the finding's predicate first in the trace, or -1 if it does not. */
    private static long checkedPosition(Path trace, Path script, ClassLoader loader, Finding finding) {
        CheckReport checked = Checker.check(trace, script, Checker.Options.defaults().withClassLoader(loader)
                .withReuseHistory(false).withScriptOutput(OutputStream.nullOutputStream()), new InMemoryStateHistory());
        Violation.Status status = finding.kind() == Finding.Kind.SAFETY ? Violation.Status.VIOLATED : null;
        for (Violation violation : checked.violations()) {
            if (violation.predicate().equals(finding.predicate()) && (status == null || violation.status() == status)) {
                return violation.event().position();
            }
        }
        return -1;
    }

    /** Runs {@code schedule} into {@code trace} and returns it with every answer's comment. */
    public static Schedule rerun(SimulationSettings settings, Schedule schedule, Path trace, ClassLoader loader,
                                 String command) {
        return rerun(settings, schedule, trace, loader, command, Optional.empty());
    }

    /** As the other {@code rerun}, from {@code start} when given (the trace then begins with the recorded prefix). */
    public static Schedule rerun(SimulationSettings settings, Schedule schedule, Path trace, ClassLoader loader,
                                 String command, Optional<TraceStart> start) {
        deleteTrace(trace);
        Recorder.Commenting commenting = new Recorder.Commenting(schedule.replay("the schedule of " + trace));
        Simulator.Options options = Simulator.Options.of(settings).withChoices(commenting).withClassLoader(loader)
                .withExploration(schedule.exploration()).withObserver(schedule.stopper((step, view) -> true))
                .withCommand(command);
        Simulator.run(settings, trace, start.map(options::withStart).orElse(options));
        return new Schedule(schedule.exploration(), schedule.steps(), schedule.stopAfterSteps(), commenting.answers);
    }

    /**
     * The position of the entry (node, seq) in the trace's merged order: the simulator's order it records, as
     * {@code deja check} and {@code deja replay} number it.
     */
    static long position(Path trace, NodeId node, long seq, long lamport) {
        long position = 0;
        try (MergedTrace merged = MergedTrace.open(Trace.open(trace))) {
            while (merged.hasNext()) {
                TraceEvent entry = merged.next();
                if (entry.node().equals(node) && entry.seq() == seq) {
                    if (entry.lamport() != lamport) {
                        throw new IllegalStateException(trace + ": node " + node + ", seq " + seq + " has clock "
                                + entry.lamport() + ", but the explored path had " + lamport
                                + " (the schedule did not run the same path again)");
                    }
                    return position;
                }
                position++;
            }
        }
        throw new IllegalStateException(trace + ": no entry of node " + node + " with seq " + seq
                + " (the schedule did not run the same path again)");
    }

    /** Removes an earlier trace the explorer wrote at {@code trace} (only one with a trace.json of a simulation). */
    private static void deleteTrace(Path trace) {
        if (!Files.exists(trace)) {
            return;
        }
        if (!Files.exists(trace.resolve("trace.json"))) {
            throw new IllegalArgumentException(trace + " exists and is not a trace; choose another --out");
        }
        try (var walk = Files.walk(trace)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replace " + trace + ": " + e.getMessage(), e);
        }
    }
}
