package dev.deja.explore.internal;

import dev.deja.explore.ExploreSettings;
import dev.deja.explore.Explorer;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.StepObserver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * The random walks from the end of a recorded run behind {@code RecordedLiveness}: unlike a critical-transition probe,
 * which stops at its first live walk, all K walks run, so that the share of live walks and their depths are known.
 * One Python context for all walks, on the calling thread.
 */
public final class RecordedSpans {
    private RecordedSpans() {
    }

    /**
     * What the walks from the end did, and the CPU time of the walking thread they took: rebuilding the state (the
     * prefix's replay, with the predicates evaluated over it) and walking on from it.
     */
    public record EndWalks(int live, List<Long> liveDepths, long steps, long prefixCpuNanos, long walkCpuNanos) {
    }

    public static EndWalks walkFromEnd(TraceOrigin origin, String predicate, ExploreSettings explore, int walks,
                                       Explorer.Options options) {
        String text;
        try {
            text = Files.readString(options.script().orElseThrow(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the script " + options.script().get() + ": " + e.getMessage(), e);
        }
        long prefix = origin.steps();
        int live = 0;
        long steps = 0;
        List<Long> depths = new ArrayList<>();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] cpu = {0, 0};
        try (LiveMonitor monitor = new LiveMonitor(text, options.script().get().toString(), options.classLoader(),
                options.predicateTimeout(), options.scriptOutput())) {
            if (!monitor.predicates().contains(predicate)) {
                throw new IllegalArgumentException(options.script().get() + " has no predicate " + predicate
                        + " (it has " + monitor.predicates() + ")");
            }
            for (int number = 0; number < walks && !options.stop().get(); number++) {
                long seed = ExplorationRun.mix(ExplorationRun.mix(explore.seed(), prefix), number);
                RandomizedSources.RandomWalk walk = new RandomizedSources.RandomWalk(origin.settings(), explore, seed);
                monitor.newRun();
                monitor.watch(predicate, prefix);
                long[] ran = {0};
                boolean[] ended = {false};
                long walkStart = threads.getCurrentThreadCpuTime();
                long[] handedOver = {-1};
                StepObserver observer = new StepObserver() {
                    @Override
                    public boolean replayedStep(SimulatedStep step, View view) {
                        if (monitor.add(step, 0)) {
                            monitor.flush();
                        }
                        return true;
                    }

                    @Override
                    public boolean afterStep(SimulatedStep step, View view) {
                        if (handedOver[0] < 0) {
                            handedOver[0] = threads.getCurrentThreadCpuTime();
                        }
                        ran[0] = step.step() + 1;
                        if (step.recorded() && monitor.add(step, 0)) {
                            if (monitor.flush().isPresent()) {
                                ended[0] = true; // a safety violation ends the walk: not a live state
                                return false;
                            }
                            if (monitor.liveAt() >= 0) {
                                return false;
                            }
                        }
                        return ran[0] < explore.maxDepth() && !options.stop().get();
                    }
                };
                origin.run(prefix, walk, observer, options.classLoader());
                if (!ended[0] && monitor.liveAt() < 0) {
                    monitor.flush();
                }
                long walkEnd = threads.getCurrentThreadCpuTime();
                long split = handedOver[0] < 0 ? walkEnd : handedOver[0];
                cpu[0] += split - walkStart;
                cpu[1] += walkEnd - split;
                steps += Math.max(0, ran[0] - prefix);
                if (!ended[0] && monitor.liveAt() >= 0) {
                    live++;
                    depths.add(monitor.liveAt() + 1 - prefix);
                }
            }
        }
        depths.sort(null);
        return new EndWalks(live, depths, steps, cpu[0], cpu[1]);
    }
}
