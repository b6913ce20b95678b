package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Bounded iterative-deepening depth-first search over choice points (MaceMC 4.1): every branching choice (which
 * enabled event runs, and each fault the budget still allows) is a branch point; the first {@code bound} of a
 * path are searched exhaustively, the rest of the path is a random walk up to the maximum depth. A state already
 * reached at the same or an earlier step in this iteration ends the path (its continuations were searched).
 * When an iteration ends with some path cut by the bound, the bound grows by one; when none was, the tree is
 * exhausted.
 *
 * <p>A search may also be confined to the subtree under a fixed prefix of answers, for one bound only (a work unit
 * of a search split among workers, see {@link Frontier}): it then never backtracks into the prefix, records no
 * state reached before the prefix ends (other units pass through those states too), and shares its map of states
 * seen with the other units of the same iteration.
 */
final class DepthFirstSearch implements TreeSearch {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final List<Frame> frames = new ArrayList<>();
    private final Map<Long, Integer> visited;
    private final List<Integer> prefix;
    private final boolean oneIteration;
    private int bound;
    private boolean cutInIteration;
    private boolean exhausted;
    private boolean started;
    private long iterations = 1;
    private long pruned;
    private long pathNumber;

    private static final class Frame {
        final int options;
        int answer;

        Frame(int options) {
            this.options = options;
        }
    }

    DepthFirstSearch(SimulationSettings settings, ExploreSettings explore) {
        this.settings = settings;
        this.explore = explore;
        this.bound = explore.searchDepth();
        this.visited = new HashMap<>();
        this.prefix = List.of();
        this.oneIteration = false;
    }

    /**
     * The subtree under {@code prefix} (answers at the first branch points), searched with {@code bound} only;
     * {@code visited} is shared with the other units of this iteration and must be safe to {@code compute} on
     * concurrently.
     */
    DepthFirstSearch(SimulationSettings settings, ExploreSettings explore, List<Integer> prefix, int bound,
                     Map<Long, Integer> visited) {
        if (prefix.size() > bound) {
            throw new IllegalArgumentException("a prefix of " + prefix.size() + " answers is past the bound " + bound);
        }
        this.settings = settings;
        this.explore = explore;
        this.bound = bound;
        this.visited = visited;
        this.prefix = List.copyOf(prefix);
        this.oneIteration = true;
    }

    /** Whether some path of this iteration was cut by the bound (a deeper iteration would see more). */
    boolean cutByBound() {
        return cutInIteration;
    }

    /** Paths ended at a state already searched. */
    long pruned() {
        return pruned;
    }

    @Override
    public PathSource nextPath() {
        if (started && !backtrack()) {
            if (oneIteration) {
                exhausted = !cutInIteration;
                return null;
            }
            if (!cutInIteration) {
                exhausted = true;
                return null;
            }
            bound++;
            iterations++;
            cutInIteration = false;
            visited.clear();
            frames.clear();
        }
        started = true;
        return new Source(pathNumber++);
    }

    /** Moves to the next branch: the deepest frame with an untried answer gets it, deeper frames are dropped. */
    private boolean backtrack() {
        for (int i = frames.size() - 1; i >= prefix.size(); i--) {
            Frame frame = frames.get(i);
            if (frame.answer + 1 < frame.options) {
                frame.answer++;
                frames.subList(i + 1, frames.size()).clear();
                return true;
            }
        }
        frames.clear();
        return false;
    }

    @Override
    public void pathEnded(long steps) {
    }

    @Override
    public boolean exhausted() {
        return exhausted;
    }

    @Override
    public String summary() {
        return "depth bound " + bound + " after " + iterations + " iteration(s); " + pruned + " path(s) ended at a state already searched";
    }

    private final class Source extends PathSource {
        private int cursor;

        Source(long path) {
            // The same draws for every path: a prefix's random draws must be the same on every branch through it.
            super(DepthFirstSearch.this.settings, DepthFirstSearch.this.explore, DepthFirstSearch.this.explore.seed());
        }

        /**
         * The random completion's own generator, so that the search part's draws do not depend on it; seeded from
         * the answers within the bound, so that a path's completion is the same however the tree was split.
         */
        private SplittableRandom walk;

        private SplittableRandom walk() {
            if (walk == null) {
                long seed = explore.seed();
                for (Frame frame : frames) {
                    seed = ExplorationRun.mix(seed, (long) frame.answer * 1_000_003L + frame.options);
                }
                walk = new SplittableRandom(seed);
            }
            return walk;
        }

        /** The answer at the next branch point among {@code options}; -1 past the bound (a random walk). */
        private int branch(int options) {
            int index = cursor++;
            if (index < frames.size()) {
                Frame frame = frames.get(index);
                if (frame.options != options) {
                    throw new IllegalStateException("the run is not deterministic: branch point " + index + " had "
                            + frame.options + " options and now has " + options);
                }
                return frame.answer;
            }
            if (index >= bound) {
                cutInIteration = true;
                return -1;
            }
            Frame frame = new Frame(options);
            if (index < prefix.size()) {
                frame.answer = prefix.get(index);
                if (frame.answer >= options) {
                    throw new IllegalStateException("the run is not deterministic: branch point " + index + " has "
                            + options + " options, fewer than the work unit's answer " + frame.answer);
                }
            }
            frames.add(frame);
            return frame.answer;
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int answer = branch(point.enabled());
            return answer >= 0 ? answer : walk().nextInt(point.enabled());
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            int answer = branch(2);
            return answer > 0;
        }

        @Override
        boolean randomTiming() {
            return false;
        }

        @Override
        boolean afterStep(SimulatedStep step, long stateHash) {
            if (cursor > bound || cursor < frames.size() || cursor < prefix.size()) {
                return true; // in the random walk, or still replaying the prefix (or the work unit's prefix)
            }
            // Seen at the same or an earlier step: everything within the depth from here was searched from there.
            int at = (int) Math.min(Integer.MAX_VALUE, step.step());
            // The faults used so far are part of the search state: the budget left decides what can follow.
            long key = stateHash * 31 + (((long) drops * 131 + duplicates) * 131 + crashes) * 131 + isolations;
            boolean[] seen = new boolean[1];
            visited.compute(key, (k, seenAt) -> {
                if (seenAt != null && seenAt <= at) {
                    seen[0] = true;
                    return seenAt;
                }
                return at;
            });
            if (seen[0]) {
                pruned++;
                return false;
            }
            return true;
        }
    }
}
