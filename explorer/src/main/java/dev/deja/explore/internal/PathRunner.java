package dev.deja.explore.internal;

import dev.deja.check.Violation;
import dev.deja.explore.ExploreSettings;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import dev.deja.sim.StepObserver;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Runs one path in memory: the simulator asks the path's source through a {@link Recorder}, the
 * {@link LiveMonitor} (if there is a script) evaluates the predicates after every recorded step, the
 * {@link StateHasher} hashes the state after every step when asked. A path ends at a safety violation, when the
 * strategy ends it, at the maximum depth, or when the run itself ends (the workload finished, nothing left to do).
 *
 * <p>One per worker thread; the monitor's Python context serves all its paths.
 */
final class PathRunner {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final Simulator.Exploration exploration;
    private final ClassLoader loader;
    private final LiveMonitor monitor;
    private final StateHasher hasher;
    private final Set<Long> distinct;
    private final BooleanSupplier interrupted;
    private final Simulator.Detail detail;
    private Optional<TraceStart> start = Optional.empty();

    /** What one path did. */
    record Result(long path, long steps, SimulationResult.Ending ending, boolean redundant, long statesVisited,
                  Optional<LiveMonitor.Hit> violation, List<LiveMonitor.Hit> errors, Map<String, Long> openAtEnd,
                  Map<String, Long> liveFrom, Recorder recorder) {
        /** The schedule that runs this path again up to the step of {@code hit}. */
        Schedule scheduleUpTo(LiveMonitor.Hit hit, Simulator.Exploration exploration) {
            return recorder.schedule(hit.answers(), exploration, hit.step() + 1, true);
        }
    }

    PathRunner(SimulationSettings settings, ExploreSettings explore, Simulator.Exploration exploration, ClassLoader loader,
               LiveMonitor monitor, boolean hash, Set<Long> distinct, BooleanSupplier interrupted) {
        this.settings = settings;
        this.explore = explore;
        this.exploration = exploration;
        this.loader = loader;
        this.monitor = monitor;
        this.hasher = hash ? new StateHasher(explore.hashExcludes()) : null;
        this.distinct = distinct;
        this.interrupted = interrupted;
        // Predicates read the entries and the state hash reads message contents; without either, build neither.
        this.detail = monitor == null && !hash ? Simulator.Detail.STEPS_ONLY : Simulator.Detail.ENTRIES;
    }

    /** Starts every path from the recorded state {@code value} rebuilds, when present. */
    PathRunner startingFrom(Optional<TraceStart> value) {
        start = value;
        return this;
    }

    Result run(long path, PathSource source) {
        Recorder recorder = new Recorder(source);
        if (monitor != null) {
            monitor.newRun();
        }
        Observer observer = new Observer(source, recorder);
        SimulationResult.Ending ending;
        boolean redundant = false;
        try {
            Simulator.Options options = Simulator.Options.of(settings).withChoices(recorder)
                    .withClassLoader(loader).withExploration(exploration).withObserver(observer).withDetail(detail);
            ending = Simulator.runInMemory(settings, start.map(options::withStart).orElse(options)).ending();
        } catch (TreeSearch.Redundant e) {
            ending = SimulationResult.Ending.STOPPED;
            redundant = true;
        }
        if (monitor != null && observer.violation.isEmpty()) {
            observer.violation = monitor.flush();
        }
        return new Result(path, observer.steps, ending, redundant, observer.visited, observer.violation,
                monitor == null ? List.of() : monitor.errors(),
                monitor == null || observer.violation.isPresent() ? Map.of() : monitor.openAtEnd(),
                monitor == null || observer.violation.isPresent() ? Map.of() : monitor.liveFromAtEnd(), recorder);
    }

    private final class Observer implements StepObserver {
        private final PathSource source;
        private final Recorder recorder;
        Optional<LiveMonitor.Hit> violation = Optional.empty();
        long steps;
        long visited;

        Observer(PathSource source, Recorder recorder) {
            this.source = source;
            this.recorder = recorder;
        }

        /** A handler call replayed to rebuild a recorded state: only the predicates see it. */
        @Override
        public boolean replayedStep(SimulatedStep step, View view) {
            steps = step.step() + 1;
            if (monitor != null && monitor.add(step, 0)) {
                violation = monitor.flush();
                return violation.isEmpty();
            }
            return true;
        }

        /**
         * The cluster's first starts, before step 0: the predicates see the state each leaves. A violation there cuts
         * the path back to the end of the boot (step count 0), where a schedule can stop.
         */
        @Override
        public boolean booted(List<SimulatedStep> starts, View view) {
            if (monitor == null) {
                return true;
            }
            for (SimulatedStep start : starts) {
                if (monitor.add(start, recorder.size())) {
                    violation = monitor.flush();
                    if (violation.isPresent()) {
                        return false;
                    }
                }
            }
            violation = monitor.flush();
            return violation.isEmpty();
        }

        @Override
        public boolean afterStep(SimulatedStep step, View view) {
            steps = step.step() + 1;
            long hash = 0;
            if (hasher != null) {
                hash = hasher.hash(view);
                visited++;
                distinct.add(hash);
            }
            if (monitor != null && step.recorded() && monitor.add(step, recorder.size())) {
                violation = monitor.flush();
                if (violation.isPresent()) {
                    return false;
                }
            }
            if (!source.afterStep(step, hash)) {
                return false;
            }
            return steps < explore.maxDepth() && !interrupted.getAsBoolean();
        }
    }

    static boolean isSafety(LiveMonitor.Hit hit) {
        return hit.kind() == Violation.Kind.ALWAYS && hit.status() == Violation.Status.VIOLATED;
    }

}
