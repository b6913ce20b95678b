package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Stateless dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005; MODIST 3.6) with sleep sets.
 *
 * <p>Two events are dependent when the same node handles them. Happens-before along a path is tracked as each
 * step's causal past (the steps before it on its node, and the causal past of the step that created it: sent its
 * message, set its timer, crashed its node). When a path ends, every step {@code j} whose previous step {@code i}
 * on the same node is not in the causal past of {@code j}'s creator races with it: at the state before {@code i},
 * {@code j}'s event is added to the backtrack set if it was enabled there, else every enabled event is. Sleep
 * sets: after a branch is explored from a state, its event sleeps in the later branches until an event of the
 * same node runs; a state whose enabled events all sleep ends the path as redundant. Faults the budget allows are
 * branch points explored both ways. The search ends when no state has a backtrack event left to try.
 *
 * <p>A search may be confined to the subtree under a fixed prefix of answers (a work unit of a search split among
 * workers, see {@link Frontier}). The split branches fully at the prefix's branch points (every answer is some
 * unit's prefix), so races that reach back into the prefix need no backtracking here, and the events ordered
 * before the prefix's answer at each of its points count as explored there: they sleep as they would have after a
 * sequential search tried them first. A unit whose own prefix answer is asleep is redundant as a whole.
 */
final class DporSearch implements TreeSearch {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final List<Frame> frames = new ArrayList<>();
    private final List<Integer> prefix;
    private boolean exhausted;
    private boolean started;
    private long redundant;
    private long races;
    private Source current;

    /** A branch point of the current path. */
    private static final class Frame {
        final boolean fault;
        final List<ChoicePoint.Enabled> enabled;
        final Set<ChoicePoint.Key> sleep;
        final Set<ChoicePoint.Key> backtrack = new LinkedHashSet<>();
        final Set<ChoicePoint.Key> done = new LinkedHashSet<>();
        int answer;

        Frame(List<ChoicePoint.Enabled> enabled, Set<ChoicePoint.Key> sleep) {
            this.fault = false;
            this.enabled = enabled;
            this.sleep = sleep;
        }

        Frame() {
            this.fault = true;
            this.enabled = List.of();
            this.sleep = Set.of();
        }

        ChoicePoint.Key chosen() {
            return enabled.get(answer).key();
        }
    }

    DporSearch(SimulationSettings settings, ExploreSettings explore) {
        this(settings, explore, List.of());
    }

    /** The subtree under {@code prefix}, the answers at the first branch points. */
    DporSearch(SimulationSettings settings, ExploreSettings explore, List<Integer> prefix) {
        this.settings = settings;
        this.explore = explore;
        this.prefix = List.copyOf(prefix);
    }

    /** Paths ended as redundant by sleep sets. */
    long redundant() {
        return redundant;
    }

    /** Races found between steps. */
    long races() {
        return races;
    }

    @Override
    public PathSource nextPath() {
        if (started && !backtrack()) {
            exhausted = true;
            return null;
        }
        started = true;
        current = new Source();
        return current;
    }

    @Override
    public void pathEnded(long steps) {
        Source path = current;
        int count = path.events.size();
        BitSet[] past = new BitSet[count];
        Map<NodeId, Integer> lastOnNode = new HashMap<>();
        for (int j = 0; j < count; j++) {
            ChoicePoint.Enabled event = path.events.get(j);
            BitSet mine = new BitSet(j + 1);
            Integer previous = lastOnNode.get(event.node());
            long cause = event.causeStep();
            BitSet creator = cause >= 0 && cause < j ? past[(int) cause] : null;
            if (previous != null) {
                mine.or(past[previous]);
                if (creator == null || !creator.get(previous)) {
                    race(previous, event, path);
                }
            }
            if (creator != null) {
                mine.or(creator);
            }
            mine.set(j);
            past[j] = mine;
            lastOnNode.put(event.node(), j);
        }
    }

    /** Step {@code i} and the later {@code event} race: try the event first at the state before step i. */
    private void race(int i, ChoicePoint.Enabled event, Source path) {
        int frameIndex = path.frameOfStep.get(i);
        if (frameIndex < 0) {
            return; // step i was the only event enabled: nothing else could have run there
        }
        if (frameIndex < prefix.size()) {
            races++;
            return; // a branch point of the work unit's prefix: every answer there is some unit's own prefix
        }
        races++;
        Frame frame = frames.get(frameIndex);
        ChoicePoint.Key key = event.key();
        for (ChoicePoint.Enabled enabled : frame.enabled) {
            if (enabled.key().equals(key)) {
                frame.backtrack.add(key);
                return;
            }
        }
        for (ChoicePoint.Enabled enabled : frame.enabled) {
            frame.backtrack.add(enabled.key());
        }
    }

    /** The deepest frame with a backtrack event not yet done and not asleep (or an untried fault) gets it. */
    private boolean backtrack() {
        for (int i = frames.size() - 1; i >= prefix.size(); i--) {
            Frame frame = frames.get(i);
            if (frame.fault) {
                if (frame.answer == 0) {
                    frame.answer = 1;
                    frames.subList(i + 1, frames.size()).clear();
                    return true;
                }
                continue;
            }
            frame.done.add(frame.chosen());
            for (int e = 0; e < frame.enabled.size(); e++) {
                ChoicePoint.Key key = frame.enabled.get(e).key();
                if (frame.backtrack.contains(key) && !frame.done.contains(key) && !frame.sleep.contains(key)) {
                    frame.answer = e;
                    frames.subList(i + 1, frames.size()).clear();
                    return true;
                }
            }
        }
        frames.clear();
        return false;
    }

    @Override
    public boolean exhausted() {
        return exhausted;
    }

    @Override
    public String summary() {
        return races + " race(s) reversed or covered; " + redundant + " path(s) ended as redundant by sleep sets";
    }

    private final class Source extends PathSource {
        private int cursor;
        private Set<ChoicePoint.Key> sleep = new LinkedHashSet<>();
        /** The events of this path's steps, and for each the frame that chose it (-1 if it was the only one). */
        final List<ChoicePoint.Enabled> events = new ArrayList<>();
        final List<Integer> frameOfStep = new ArrayList<>();
        private int lastPickFrame = -1;

        Source() {
            super(DporSearch.this.settings, DporSearch.this.explore, DporSearch.this.explore.seed());
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int index = cursor++;
            Frame frame;
            if (index < frames.size()) {
                frame = frames.get(index);
                if (frame.fault || frame.enabled.size() != point.enabled()) {
                    throw new IllegalStateException("the run is not deterministic: branch point " + index + " changed");
                }
            } else if (index < prefix.size()) {
                frame = new Frame(point.events(), Set.copyOf(sleep));
                frame.answer = prefix.get(index);
                if (frame.answer >= point.enabled()) {
                    throw new IllegalStateException("the run is not deterministic: branch point " + index + " has "
                            + point.enabled() + " options, fewer than the work unit's answer " + frame.answer);
                }
                if (frame.sleep.contains(frame.chosen())) {
                    redundant++;
                    throw new Redundant();
                }
                // The events before the answer are explored by the units whose prefixes chose them.
                for (int e = 0; e < frame.answer; e++) {
                    frame.done.add(point.events().get(e).key());
                }
                frame.backtrack.add(frame.chosen());
                frames.add(frame);
            } else {
                frame = new Frame(point.events(), Set.copyOf(sleep));
                int chosen = -1;
                for (int e = 0; e < point.enabled(); e++) {
                    if (!sleep.contains(point.events().get(e).key())) {
                        chosen = e;
                        break;
                    }
                }
                if (chosen < 0) {
                    redundant++;
                    throw new Redundant();
                }
                frame.answer = chosen;
                frame.backtrack.add(frame.chosen());
                frames.add(frame);
            }
            // The child's sleep set: what slept here or was explored here before, if independent of the chosen event.
            ChoicePoint.Key chosen = frame.chosen();
            Set<ChoicePoint.Key> next = new LinkedHashSet<>();
            for (ChoicePoint.Key key : frame.sleep) {
                if (!key.node().equals(chosen.node())) {
                    next.add(key);
                }
            }
            for (ChoicePoint.Key key : frame.done) {
                if (!key.equals(chosen) && !key.node().equals(chosen.node())) {
                    next.add(key);
                }
            }
            sleep = next;
            lastPickFrame = index;
            return frame.answer;
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            int index = cursor++;
            if (index < frames.size()) {
                Frame frame = frames.get(index);
                if (!frame.fault) {
                    throw new IllegalStateException("the run is not deterministic: branch point " + index + " changed");
                }
                return frame.answer == 1;
            }
            Frame frame = new Frame();
            frame.answer = index < prefix.size() ? prefix.get(index) : 0;
            frames.add(frame);
            return frame.answer == 1;
        }

        @Override
        boolean randomTiming() {
            return false;
        }

        @Override
        boolean afterStep(SimulatedStep step, long stateHash) {
            ChoicePoint.Enabled event = step.event();
            int frame = -1;
            if (lastPickFrame >= 0 && !frames.get(lastPickFrame).fault
                    && frames.get(lastPickFrame).chosen().equals(event.key())) {
                frame = lastPickFrame;
            }
            lastPickFrame = -1;
            events.add(event);
            frameOfStep.add(frame);
            NodeId node = event.node();
            sleep.removeIf(key -> key.node().equals(node));
            return true;
        }
    }
}
