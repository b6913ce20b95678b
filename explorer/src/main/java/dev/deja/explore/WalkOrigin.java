package dev.deja.explore;

import dev.deja.explore.internal.ScheduleOrigin;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.StepObserver;
import dev.deja.sim.TraceStart;
import java.util.List;
import java.util.Optional;

/**
 * Where the liveness search's random walks start: a run (the violating one) whose prefixes can be run again and then
 * continued by a walk. {@link #ofSchedule} serves a simulated run kept as a schedule; a run rebuilt from a recorded
 * trace implements it by running the recorded prefix and then simulating.
 *
 * <p>Implementations are used by several threads at once (one run per thread): {@link #run} must not share mutable
 * state between calls.
 */
public interface WalkOrigin {
    /** The settings of the simulated runs the walks make (nodes, faults, limits). */
    SimulationSettings settings();

    /** The violating run's length in steps. */
    long steps();

    /**
     * Runs in memory the violating run's first {@code prefix} steps, then lets {@code walk} answer every later choice,
     * calling {@code observer} after every step (the prefix's included), until the observer returns false or the run
     * ends. Called on the walking thread.
     */
    void run(long prefix, ChoiceSource walk, StepObserver observer, ClassLoader loader);

    /**
     * The schedule of the run made by {@code run(prefix, walk, …)} when {@code walk} gave {@code walkAnswers} and the
     * run was ended after {@code steps} steps; empty when the origin is not a simulated run.
     */
    Optional<Schedule> schedule(long prefix, List<Schedule.Answer> walkAnswers, long steps);

    /** The violating run's own schedule, if it has one. */
    Optional<Schedule> schedule();

    /**
     * The recorded state a run to prefix {@code prefix} starts from, rebuilt by replay, when the run does not start at
     * the cluster's boot: the schedule {@link #schedule(long, List, long)} gives for that prefix answers only the choices
     * made after that state. A prefix inside a recorded run's replayed part starts from the recording's state after
     * {@code prefix} handler calls, not from the violating run's own start.
     */
    default Optional<TraceStart> start(long prefix) {
        return Optional.empty();
    }

    /** A simulated run given by its schedule (as the explorer finds it) under {@code settings}. */
    static WalkOrigin ofSchedule(SimulationSettings settings, Schedule schedule, ClassLoader loader) {
        return new ScheduleOrigin(settings, schedule, loader, Optional.empty());
    }

    /**
     * A simulated run given by its schedule that starts from the recorded state {@code start} rebuilds (as
     * {@code explore --from TRACE --at POSITION} runs them), or from the cluster's boot when empty.
     */
    static WalkOrigin ofSchedule(SimulationSettings settings, Schedule schedule, ClassLoader loader,
                                 Optional<TraceStart> start) {
        return new ScheduleOrigin(settings, schedule, loader, start);
    }
}
