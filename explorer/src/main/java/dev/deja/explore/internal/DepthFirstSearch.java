package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bounded iterative-deepening depth-first search over choice points (MaceMC 4.1): every branching choice (which
 * enabled event runs, and each fault the budget still allows) is a branch point; the first {@code bound} of a
 * path are searched exhaustively, the rest of the path is a random walk up to the maximum depth. A state already
 * reached at the same or an earlier step in this iteration ends the path (its continuations were searched).
 * When an iteration ends with some path cut by the bound, the bound grows by one; when none was, the tree is
 * exhausted.
 */
final class DepthFirstSearch implements TreeSearch {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final List<Frame> frames = new ArrayList<>();
    private final Map<Long, Integer> visited = new HashMap<>();
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
    }

    @Override
    public PathSource nextPath() {
        if (started && !backtrack()) {
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
        for (int i = frames.size() - 1; i >= 0; i--) {
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
            this.walk = new java.util.SplittableRandom(explore.seed() ^ (path * 0x9E3779B97F4A7C15L));
        }

        /** The random completion's own generator, so that the search part's draws do not depend on it. */
        private final java.util.SplittableRandom walk;

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
            frames.add(new Frame(options));
            return 0;
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int answer = branch(point.enabled());
            return answer >= 0 ? answer : walk.nextInt(point.enabled());
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
            if (cursor > bound || cursor < frames.size()) {
                return true; // in the random walk, or still replaying the prefix
            }
            // Seen at the same or an earlier step: everything within the depth from here was searched from there.
            int at = (int) Math.min(Integer.MAX_VALUE, step.step());
            // The faults used so far are part of the search state: the budget left decides what can follow.
            long key = stateHash * 31 + (((long) drops * 131 + duplicates) * 131 + crashes) * 131 + isolations;
            Integer seenAt = visited.get(key);
            if (seenAt != null && seenAt <= at) {
                pruned++;
                return false;
            }
            visited.put(key, at);
            return true;
        }
    }
}
