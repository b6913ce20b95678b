package dev.deja.explore.internal;

import dev.deja.explore.WalkOrigin;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import dev.deja.sim.TraceStart;
import java.util.List;
import java.util.Optional;

/**
 * A recorded run as the origin of random walks: prefix {@code p} is the state after the recording's first {@code p}
 * handler calls (in merged order), rebuilt by replay for every walk; the walk then answers every choice of the simulated
 * continuation. The observer sees the replayed handler calls as the run's first steps. The recorded run itself has no
 * schedule; a walk from prefix {@code p} has one, which answers the choices after the state {@link #start(long)} names
 * ({@code deja simulate --from TRACE --at POSITION --schedule FILE} runs it again).
 */
public final class TraceOrigin implements WalkOrigin {
    private final SimulationSettings settings;
    private final TraceStart.Recording recording;

    public TraceOrigin(SimulationSettings settings, TraceStart.Recording recording) {
        this.settings = settings;
        this.recording = recording;
    }

    @Override
    public SimulationSettings settings() {
        return settings;
    }

    @Override
    public long steps() {
        return recording.handlerCalls();
    }

    @Override
    public void run(long prefix, ChoiceSource walk, StepObserver observer, ClassLoader loader) {
        Simulator.runInMemory(settings, Simulator.Options.of(settings).withChoices(walk).withClassLoader(loader)
                .withStart(start(prefix).orElseThrow()).withObserver(observer));
    }

    @Override
    public Optional<TraceStart> start(long prefix) {
        return Optional.of(new TraceStart(recording.positionAfterHandlerCalls(prefix), recording));
    }

    /** The recording the walks start from. */
    public TraceStart.Recording recording() {
        return recording;
    }

    @Override
    public Optional<Schedule> schedule(long prefix, List<Schedule.Answer> walkAnswers, long steps) {
        return Optional.of(new Schedule(Simulator.Exploration.NONE, steps, true, walkAnswers));
    }

    @Override
    public Optional<Schedule> schedule() {
        return Optional.empty();
    }
}
