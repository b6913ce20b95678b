package dev.deja.explore.internal;

import dev.deja.explore.WalkOrigin;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.Schedule;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A simulated run kept as its schedule. Prefix {@code p} is the answers the run had given when its step {@code p - 1}
 * returned (counted once, by one in-memory run of the schedule); a walk from it replays those and then asks the walk.
 *
 * <p>A run that starts from a recorded state ({@code explore --from TRACE --at POSITION}) has the recording's handler
 * calls up to the position as its first steps, which no answer decides. A prefix among them is the recording's own
 * state after that many handler calls, rebuilt by replay, and the walk answers everything after it: it may then do
 * what the recording did not (the replay of a later prefix always does what the recording did).
 */
public final class ScheduleOrigin implements WalkOrigin {
    private final SimulationSettings settings;
    private final Schedule schedule;
    /** answersAfter[s]: answers given when step s (0-based) returned. */
    private final int[] answersAfter;
    private final Optional<dev.deja.sim.TraceStart> start;

    public ScheduleOrigin(SimulationSettings settings, Schedule schedule, ClassLoader loader,
                          Optional<dev.deja.sim.TraceStart> start) {
        this.settings = settings;
        this.schedule = schedule;
        this.start = start;
        ChoiceSource replay = schedule.replay("the violating run's schedule");
        int[] given = {0};
        ChoiceSource counting = new ChoiceSource() {
            @Override
            public int pick(ChoicePoint point, int options) {
                given[0]++;
                return replay.pick(point, options);
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                given[0]++;
                return replay.chance(point, probability);
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                given[0]++;
                return replay.between(point, min, max);
            }

            @Override
            public long bits(ChoicePoint point) {
                given[0]++;
                return replay.bits(point);
            }
        };
        int[][] counts = {new int[1024]};
        long[] steps = {0};
        Simulator.runInMemory(settings, started(Simulator.Options.of(settings).withChoices(counting).withClassLoader(loader)
                .withExploration(schedule.exploration())).withObserver(schedule.stopper((step, view) -> {
                    if (step.step() >= counts[0].length) {
                        counts[0] = Arrays.copyOf(counts[0], counts[0].length * 2);
                    }
                    counts[0][(int) step.step()] = given[0];
                    steps[0] = step.step() + 1;
                    return true;
                })));
        this.answersAfter = Arrays.copyOf(counts[0], (int) steps[0]);
    }

    @Override
    public SimulationSettings settings() {
        return settings;
    }

    @Override
    public long steps() {
        return answersAfter.length;
    }

    private Schedule prefix(long prefix) {
        if (prefix < 0 || prefix > answersAfter.length) {
            throw new IllegalArgumentException("prefix " + prefix + " is outside the run's " + answersAfter.length + " steps");
        }
        int answers = prefix == 0 ? 0 : answersAfter[(int) prefix - 1];
        return new Schedule(schedule.exploration(), prefix, false, schedule.answers().subList(0, answers));
    }

    /** Whether prefix {@code prefix} lies inside the recorded part, before the hand-over to the simulator. */
    private boolean recorded(long prefix) {
        return start.isPresent() && prefix < start.get().handlerCalls();
    }

    @Override
    public Optional<dev.deja.sim.TraceStart> start(long prefix) {
        return recorded(prefix) ? Optional.of(start.get().afterHandlerCalls(prefix)) : start;
    }

    @Override
    public void run(long prefix, ChoiceSource walk, StepObserver observer, ClassLoader loader) {
        if (recorded(prefix)) {
            Simulator.runInMemory(settings, Simulator.Options.of(settings).withChoices(walk).withClassLoader(loader)
                    .withExploration(schedule.exploration()).withStart(start(prefix).orElseThrow()).withObserver(observer));
            return;
        }
        ChoiceSource source = prefix(prefix).replayThen("the violating run's schedule (prefix " + prefix + ")", walk);
        Simulator.runInMemory(settings, started(Simulator.Options.of(settings).withChoices(source).withClassLoader(loader)
                .withExploration(schedule.exploration())).withObserver(observer));
    }

    /** {@code options} starting from the recorded state, when the run starts there. */
    private Simulator.Options started(Simulator.Options options) {
        return start.map(options::withStart).orElse(options);
    }

    /** The recorded state the run starts from, if not the cluster's boot. */
    public Optional<dev.deja.sim.TraceStart> start() {
        return start;
    }

    @Override
    public Optional<Schedule> schedule(long prefix, List<Schedule.Answer> walkAnswers, long steps) {
        if (recorded(prefix)) {
            return Optional.of(new Schedule(schedule.exploration(), steps, true, walkAnswers));
        }
        List<Schedule.Answer> all = new ArrayList<>(prefix(prefix).answers());
        all.addAll(walkAnswers);
        return Optional.of(new Schedule(schedule.exploration(), steps, true, all));
    }

    @Override
    public Optional<Schedule> schedule() {
        return Optional.of(schedule);
    }
}
