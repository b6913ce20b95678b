package dev.deja.sim;

import java.util.SplittableRandom;

/**
 * The one source of every nondeterministic decision in a simulated run (see {@link ChoicePoint}). The
 * simulator never reads a clock, a random generator or thread timing of its own, so two runs given sources that
 * answer alike are identical, byte for byte.
 *
 * <p>Implementations need not be thread-safe: a run asks from one thread.
 */
public interface ChoiceSource {
    /** An index in {@code [0, options)}; {@code options} is at least 1. */
    int pick(ChoicePoint point, int options);

    /** True with {@code probability} (in [0, 1]); a source that explores may answer either way. */
    boolean chance(ChoicePoint point, double probability);

    /** A value in {@code [min, max]}, both inclusive. */
    long between(ChoicePoint point, long min, long max);

    /** 64 random bits. */
    long bits(ChoicePoint point);

    /** The source behind {@code deja simulate --seed}: every answer drawn from one generator seeded with {@code seed}. */
    static ChoiceSource seeded(long seed) {
        return new Seeded(seed);
    }

    /** Draws every answer from a {@link SplittableRandom}. */
    final class Seeded implements ChoiceSource {
        private final SplittableRandom random;

        private Seeded(long seed) {
            this.random = new SplittableRandom(seed);
        }

        @Override
        public int pick(ChoicePoint point, int options) {
            return options == 1 ? 0 : random.nextInt(options);
        }

        @Override
        public boolean chance(ChoicePoint point, double probability) {
            return probability > 0 && (probability >= 1 || random.nextDouble() < probability);
        }

        @Override
        public long between(ChoicePoint point, long min, long max) {
            return min == max ? min : random.nextLong(min, max + 1);
        }

        @Override
        public long bits(ChoicePoint point) {
            return random.nextLong();
        }
    }
}
