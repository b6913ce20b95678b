package dev.deja.explore.internal;

import dev.deja.explore.CriticalTransition;
import dev.deja.explore.LivenessSearch;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.TraceStart;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.BiFunction;

/** Writes a critical transition's violating run and nearest live run as traces with their schedules, side by side. */
public final class LivenessEvidence {
    private LivenessEvidence() {
    }

    /**
     * Writes the violating run (simulated, from {@code start} or the cluster's boot) and the nearest live run, which
     * starts from its walk's own recorded state when it has one, else from {@code start}.
     */
    public static CriticalTransition write(CriticalTransition found, SimulationSettings settings, Path directory,
                                           ClassLoader loader, LivenessSearch.Reproduce command,
                                           BiFunction<Path, Path, String> compare, Optional<TraceStart> start) {
        if (found.violating().isEmpty()) {
            throw new IllegalArgumentException("the violating run of " + found.predicate()
                    + " has no schedule (it is not a simulated run), so it cannot be written as a trace");
        }
        create(directory);
        Path violatingSchedule = directory.resolve(found.predicate() + "-violating.schedule");
        Path violatingTrace = directory.resolve(found.predicate() + "-violating.trace");
        String violatingCommand = command.command(violatingSchedule, violatingTrace, start);
        write(settings, found.violating().get(), violatingSchedule, violatingTrace, loader, violatingCommand, start);
        return withLive(found, settings, directory, loader, command, compare, start, violatingTrace,
                Optional.of(violatingSchedule.toString()), Optional.of(violatingCommand));
    }

    /**
     * For a critical transition found inside a recorded run: the recorded trace is the violating run, and only the
     * nearest live run (a walk from a recorded state) is written, into {@code directory}.
     */
    public static CriticalTransition writeLive(CriticalTransition found, SimulationSettings settings, Path recorded,
                                               Path directory, ClassLoader loader, LivenessSearch.Reproduce command,
                                               BiFunction<Path, Path, String> compare) {
        return withLive(found, settings, directory, loader, command, compare, Optional.empty(), recorded,
                Optional.empty(), Optional.empty());
    }

    private static CriticalTransition withLive(CriticalTransition found, SimulationSettings settings, Path directory,
                                               ClassLoader loader, LivenessSearch.Reproduce command,
                                               BiFunction<Path, Path, String> compare, Optional<TraceStart> start,
                                               Path violatingTrace, Optional<String> violatingSchedule,
                                               Optional<String> violatingCommand) {
        Optional<String> liveTrace = Optional.empty();
        Optional<String> liveSchedule = Optional.empty();
        Optional<String> liveCommand = Optional.empty();
        Optional<String> compareCommand = Optional.empty();
        Optional<CriticalTransition.LiveWalk> walk = found.nearestLive().filter(w -> w.schedule().isPresent());
        if (walk.isPresent()) {
            create(directory);
            Optional<TraceStart> from = walk.get().start().or(() -> start);
            Path schedule = directory.resolve(found.predicate() + "-live.schedule");
            Path trace = directory.resolve(found.predicate() + "-live.trace");
            String reproduce = command.command(schedule, trace, from);
            write(settings, walk.get().schedule().get(), schedule, trace, loader, reproduce, from);
            liveTrace = Optional.of(trace.toString());
            liveSchedule = Optional.of(schedule.toString());
            liveCommand = Optional.of(reproduce);
            compareCommand = Optional.of(compare.apply(violatingTrace, trace));
        }
        return found.withEvidence(new CriticalTransition.Evidence(violatingTrace.toString(), violatingSchedule,
                violatingCommand, liveTrace, liveSchedule, liveCommand, compareCommand));
    }

    private static void create(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory + ": " + e.getMessage(), e);
        }
    }

    private static void write(SimulationSettings settings, Schedule schedule, Path schedulePath, Path tracePath,
                              ClassLoader loader, String command, Optional<TraceStart> start) {
        Evidence.rerun(settings, schedule, tracePath, loader, command, start).write(schedulePath);
    }
}
