package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.explore.WorkUnit;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.TraceStart;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Splits the tree of a {@code dfs} or {@code dpor} search into work units for several workers: breadth first from
 * the root, every answer at each branch point becomes a prefix of its own, until there are enough prefixes (or the
 * depth bound is reached). The branch points of the prefixes are learnt by <em>probe runs</em>: the simulator runs
 * a prefix's answers and stops at the next branch point, reporting its options; probes evaluate no predicate and
 * hash no state (every unit under that prefix runs those steps again).
 *
 * <p>A prefix is a list of answers at branch points: for a scheduling choice the index of the enabled event, for a
 * fault 1 (it happens) or 0. In a {@link WorkUnit} they are written as schedule-like lines, {@code pick A of N} and
 * {@code chance yes} / {@code chance no}, and read back by {@link #answers}.
 */
final class Frontier {
    private final SimulationSettings settings;
    private final ExploreSettings explore;
    private final Simulator.Exploration exploration;
    private final ClassLoader loader;
    private final Optional<TraceStart> start;
    private long probes;

    /** {@code start}: the recorded state every path starts from, when the exploration starts from a trace. */
    Frontier(SimulationSettings settings, ExploreSettings explore, Simulator.Exploration exploration, ClassLoader loader,
             Optional<TraceStart> start) {
        this.settings = settings;
        this.explore = explore;
        this.exploration = exploration;
        this.loader = loader;
        this.start = start;
    }

    /** Probe runs so far. */
    long probes() {
        return probes;
    }

    /**
     * At least {@code wanted} work units whose prefixes together cover the tree (fewer when the tree is smaller), no
     * prefix longer than {@code maxDepth} branch points; stops early (and returns what it has) when {@code stop} says so.
     */
    List<WorkUnit> split(int wanted, int maxDepth, BooleanSupplier stop) {
        List<List<Integer>> leaves = new ArrayList<>();
        List<List<Integer>> level = new ArrayList<>(List.of(List.of()));
        List<List<String>> levelLines = new ArrayList<>(List.of(List.of()));
        List<List<String>> leafLines = new ArrayList<>();
        for (int depth = 0; depth < maxDepth && !level.isEmpty() && leaves.size() + level.size() < wanted
                && !stop.getAsBoolean(); depth++) {
            List<List<Integer>> next = new ArrayList<>();
            List<List<String>> nextLines = new ArrayList<>();
            for (int p = 0; p < level.size(); p++) {
                List<Integer> prefix = level.get(p);
                Probe probe = probe(prefix);
                if (probe.options == 0) {
                    leaves.add(prefix);
                    leafLines.add(levelLines.get(p));
                    continue;
                }
                for (int answer = 0; answer < probe.options; answer++) {
                    List<Integer> child = new ArrayList<>(prefix);
                    child.add(answer);
                    List<String> lines = new ArrayList<>(levelLines.get(p));
                    lines.add(probe.fault ? (answer == 1 ? "chance yes" : "chance no")
                            : "pick " + answer + " of " + probe.options);
                    next.add(child);
                    nextLines.add(lines);
                }
            }
            level = next;
            levelLines = nextLines;
        }
        List<WorkUnit> units = new ArrayList<>();
        long budget = explore.budget() == null ? 0 : explore.budget().toMillis();
        for (List<String> lines : leafLines) {
            units.add(new WorkUnit(explore.strategy().cliName(), explore.seed(), 0, explore.maxPaths(), lines, budget));
        }
        for (List<String> lines : levelLines) {
            units.add(new WorkUnit(explore.strategy().cliName(), explore.seed(), 0, explore.maxPaths(), lines, budget));
        }
        return units;
    }

    /** The answers of a work unit's prefix. */
    static List<Integer> answers(WorkUnit unit) {
        List<Integer> answers = new ArrayList<>();
        for (String line : unit.prefix()) {
            String[] words = line.strip().split("\\s+");
            if (words.length == 4 && words[0].equals("pick") && words[2].equals("of")) {
                answers.add(Integer.parseInt(words[1]));
            } else if (words.length == 2 && words[0].equals("chance") && (words[1].equals("yes") || words[1].equals("no"))) {
                answers.add(words[1].equals("yes") ? 1 : 0);
            } else {
                throw new IllegalArgumentException("a work unit's prefix line is 'pick A of N' or 'chance yes|no', was '"
                        + line + "'");
            }
        }
        return answers;
    }

    /** What a probe saw at the branch point after its prefix: how many options (0: the run ended first), and its kind. */
    private record Probe(int options, boolean fault) {
    }

    private Probe probe(List<Integer> prefix) {
        probes++;
        ProbeSource source = new ProbeSource(prefix);
        // The branch point may come inside a handler (a send's drop): answered by default, the run ends after the step.
        Simulator.Options options = Simulator.Options.of(settings).withChoices(source).withClassLoader(loader)
                .withExploration(exploration).withDetail(Simulator.Detail.STEPS_ONLY)
                .withObserver((step, view) -> source.reached == null && step.step() + 1 < explore.maxDepth());
        Simulator.runInMemory(settings, start.map(options::withStart).orElse(options));
        return source.reached == null ? new Probe(0, false) : source.reached;
    }

    /**
     * Answers the prefix at the branch points, as dfs and dpor number them, notes the next one and answers the rest
     * with their first option.
     */
    private final class ProbeSource extends PathSource {
        private final List<Integer> prefix;
        private int cursor;
        Probe reached;

        ProbeSource(List<Integer> prefix) {
            // The tree searches' seed: the draws inside handlers are those of every path of the tree.
            super(Frontier.this.settings, Frontier.this.explore, Frontier.this.explore.seed());
            this.prefix = prefix;
        }

        @Override
        int schedule(ChoicePoint.NextEvent point) {
            int index = cursor++;
            if (index < prefix.size()) {
                return prefix.get(index);
            }
            if (reached == null) {
                reached = new Probe(point.enabled(), false);
            }
            return 0;
        }

        @Override
        boolean fault(ChoicePoint point, double probability) {
            int index = cursor++;
            if (index < prefix.size()) {
                return prefix.get(index) == 1;
            }
            if (reached == null) {
                reached = new Probe(2, true);
            }
            return false;
        }

        @Override
        boolean randomTiming() {
            return false;
        }
    }
}
