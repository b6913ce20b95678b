package dev.deja.explore.internal;

import dev.deja.explore.CriticalTransition;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
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

    public static CriticalTransition write(CriticalTransition found, SimulationSettings settings, Path directory,
                                           ClassLoader loader, BiFunction<Path, Path, String> command,
                                           BiFunction<Path, Path, String> compare,
                                           Optional<dev.deja.sim.TraceStart> start) {
        if (found.violating().isEmpty()) {
            throw new IllegalArgumentException("the violating run of " + found.predicate()
                    + " has no schedule (it is not a simulated run), so it cannot be written as a trace");
        }
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory + ": " + e.getMessage(), e);
        }
        Path violatingSchedule = directory.resolve(found.predicate() + "-violating.schedule");
        Path violatingTrace = directory.resolve(found.predicate() + "-violating.trace");
        String violatingCommand = command.apply(violatingSchedule, violatingTrace);
        write(settings, found.violating().get(), violatingSchedule, violatingTrace, loader, violatingCommand, start);
        Optional<String> liveTrace = Optional.empty();
        Optional<String> liveSchedule = Optional.empty();
        Optional<String> liveCommand = Optional.empty();
        Optional<String> compareCommand = Optional.empty();
        Optional<Schedule> live = found.nearestLive().flatMap(CriticalTransition.LiveWalk::schedule);
        if (live.isPresent()) {
            Path schedule = directory.resolve(found.predicate() + "-live.schedule");
            Path trace = directory.resolve(found.predicate() + "-live.trace");
            String reproduce = command.apply(schedule, trace);
            write(settings, live.get(), schedule, trace, loader, reproduce, start);
            liveTrace = Optional.of(trace.toString());
            liveSchedule = Optional.of(schedule.toString());
            liveCommand = Optional.of(reproduce);
            compareCommand = Optional.of(compare.apply(violatingTrace, trace));
        }
        return found.withEvidence(new CriticalTransition.Evidence(violatingTrace.toString(), violatingSchedule.toString(),
                violatingCommand, liveTrace, liveSchedule, liveCommand, compareCommand));
    }

    private static void write(SimulationSettings settings, Schedule schedule, Path schedulePath, Path tracePath,
                              ClassLoader loader, String command, Optional<dev.deja.sim.TraceStart> start) {
        Evidence.rerun(settings, schedule, tracePath, loader, command, start).write(schedulePath);
    }
}
