package dev.deja.explore.internal;

import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.Schedule;
import dev.deja.sim.Simulator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Passes every question to a strategy's source and keeps the answers in primitive arrays, so that any prefix of
 * the path can be made a {@link Schedule} afterwards without slowing the path down.
 */
final class Recorder implements ChoiceSource {
    private final ChoiceSource inner;
    private byte[] kinds = new byte[1024];
    private long[] values = new long[1024];
    private int[] options = new int[1024];
    private int size;

    Recorder(ChoiceSource inner) {
        this.inner = inner;
    }

    /** How many answers were given so far. */
    int size() {
        return size;
    }

    private void add(Schedule.Kind kind, long value, int count) {
        if (size == kinds.length) {
            kinds = Arrays.copyOf(kinds, size * 2);
            values = Arrays.copyOf(values, size * 2);
            options = Arrays.copyOf(options, size * 2);
        }
        kinds[size] = (byte) kind.ordinal();
        values[size] = value;
        options[size] = count;
        size++;
    }

    @Override
    public int pick(ChoicePoint point, int count) {
        int answer = inner.pick(point, count);
        add(Schedule.Kind.PICK, answer, count);
        return answer;
    }

    @Override
    public boolean chance(ChoicePoint point, double probability) {
        boolean answer = inner.chance(point, probability);
        add(Schedule.Kind.CHANCE, answer ? 1 : 0, 0);
        return answer;
    }

    @Override
    public long between(ChoicePoint point, long min, long max) {
        long answer = inner.between(point, min, max);
        add(Schedule.Kind.BETWEEN, answer, 0);
        return answer;
    }

    @Override
    public long bits(ChoicePoint point) {
        long answer = inner.bits(point);
        add(Schedule.Kind.BITS, answer, 0);
        return answer;
    }

    /** The first {@code answers} answers as a schedule of {@code steps} steps, without comments. */
    Schedule schedule(int answers, Simulator.Exploration exploration, long steps, boolean stopAfterSteps) {
        Schedule.Kind[] all = Schedule.Kind.values();
        List<Schedule.Answer> out = new ArrayList<>(answers);
        for (int i = 0; i < answers; i++) {
            out.add(new Schedule.Answer(all[kinds[i]], values[i], options[i], ""));
        }
        return new Schedule(exploration, steps, stopAfterSteps, out);
    }

    /** A source that answers as {@code inner} does and collects every answer with a comment saying what was asked. */
    static final class Commenting implements ChoiceSource {
        private final ChoiceSource inner;
        final List<Schedule.Answer> answers = new ArrayList<>();

        Commenting(ChoiceSource inner) {
            this.inner = inner;
        }

        @Override
        public int pick(ChoicePoint point, int count) {
            int answer = inner.pick(point, count);
            answers.add(new Schedule.Answer(Schedule.Kind.PICK, answer, count, Schedule.comment(point, answer)));
            return answer;
        }

        @Override
        public boolean chance(ChoicePoint point, double probability) {
            boolean answer = inner.chance(point, probability);
            answers.add(new Schedule.Answer(Schedule.Kind.CHANCE, answer ? 1 : 0, 0, Schedule.comment(point, 0)));
            return answer;
        }

        @Override
        public long between(ChoicePoint point, long min, long max) {
            long answer = inner.between(point, min, max);
            answers.add(new Schedule.Answer(Schedule.Kind.BETWEEN, answer, 0, Schedule.comment(point, 0)));
            return answer;
        }

        @Override
        public long bits(ChoicePoint point) {
            long answer = inner.bits(point);
            answers.add(new Schedule.Answer(Schedule.Kind.BITS, answer, 0, Schedule.comment(point, 0)));
            return answer;
        }
    }
}
