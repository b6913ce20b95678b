package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import dev.deja.view.bench.GossipNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Open-and-pan speed, run by hand (not a test):
 * <pre>
 *   ViewerBench make TRACE STEPS [NODES]   simulate gossiping nodes into a new trace (about 2.5 entries a step)
 *   ViewerBench measure TRACE [ROUNDS]     time opening TRACE into the model, and frames panning over 100,000 positions
 * </pre>
 * Measuring prints, per round, the time to open the trace; then, at each zoom, the mean and worst time to paint
 * one frame (1600 by 360 pixels) and to paint and rasterize it, while the window pans across 100,000 positions.
 * Run with the test class path and {@code -Dglass.platform=Headless -Dprism.order=sw}.
 */
public final class ViewerBench {
    private ViewerBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("make")) {
            make(Path.of(args[1]), Long.parseLong(args[2]), args.length > 3 ? Integer.parseInt(args[3]) : 7);
        } else if (args.length >= 2 && args[0].equals("measure")) {
            measure(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 3);
        } else {
            System.err.println("usage: ViewerBench make TRACE STEPS [NODES] | measure TRACE [ROUNDS]");
            System.exit(2);
        }
        System.exit(0);
    }

    private static void make(Path trace, long steps, int nodes) {
        SimulationSettings.Builder settings = SimulationSettings.builder().seed(7).dropProbability(0.05)
                .delayMillis(1, 30).maxSteps(steps).maxVirtualMillis(Long.MAX_VALUE / 4).stop(SimulationSettings.Stop.AT_LIMIT);
        for (int i = 1; i <= nodes; i++) {
            settings.node(new NodeId("n" + i), GossipNode.class.getName(), Map.of());
        }
        SimulationResult result = Simulator.run(settings.build(), trace,
                Simulator.Options.of(settings.build()).withClassLoader(ViewerBench.class.getClassLoader()));
        System.out.printf(Locale.ROOT, "made %s: %d steps, %d entries, %.1f s%n", trace, result.steps(), result.entries(),
                result.elapsed().toNanos() / 1e9);
    }

    private static void measure(Path trace, int rounds) throws Exception {
        if (!Files.isDirectory(trace)) {
            throw new IllegalArgumentException("no trace at " + trace + "; make one with: ViewerBench make " + trace + " 400000");
        }
        TraceModel model = null;
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int round = 1; round <= rounds; round++) {
            model = null;
            System.gc();
            long heapBefore = usedHeap();
            long start = System.nanoTime();
            long cpuStart = threads.getCurrentThreadCpuTime();
            model = TraceModel.open(trace);
            long openNanos = System.nanoTime() - start;
            long cpuNanos = threads.getCurrentThreadCpuTime() - cpuStart;
            System.gc();
            long heap = usedHeap() - heapBefore;
            System.out.printf(Locale.ROOT, "round %d: opened %d entries (%d arcs) in %.2f s (%.0f entries/s; %.2f s of CPU),"
                            + " model %.0f MB (%.0f bytes an entry)%n", round, model.size(), model.arcCount(), openNanos / 1e9,
                    model.size() / (openNanos / 1e9), cpuNanos / 1e9, heap / 1e6, (double) heap / model.size());
        }
        // A window 1600 pixels wide pans across a 100,000-position stretch in the middle of the trace, in 40 steps,
        // at several zooms. A frame is the paint (canvas commands) plus the snapshot that rasterizes them, which
        // is what the window's next pulse does.
        int stretch = Math.min(100_000, model.size());
        int base = Math.max(0, model.size() / 2 - stretch / 2);
        ArcIndex arcs = ArcIndex.of(model);
        for (int visible : new int[] {200, 2_000, 20_000, 100_000}) {
            visible = Math.min(visible, model.size());
            long[] paint = new long[40];
            long[] snapshot = new long[40];
            long[] cpu = new long[40];
            for (int frame = 0; frame < 40; frame++) {
                int first = base + (int) ((long) (stretch - Math.min(stretch, visible)) * frame / 39);
                PictureSettings settings = PictureSettings.builder(model.size()).range(first, first + visible - 1)
                        .widthPixels(1600).build();
                GraphFrame content = PictureRenderer.frame(model, arcs, settings, false);
                int last = Math.min(model.size() - 1, first + visible - 1);
                long cpuStart = processCpuNanos();
                long[] times = FxToolkit.call(() -> {
                    long start = System.nanoTime();
                    GraphLayout layout = GraphPainter.windowLayout(content, 1600, 360, first, 1600.0 / (last - first + 1));
                    javafx.scene.canvas.Canvas canvas = new javafx.scene.canvas.Canvas(1600, 360);
                    GraphPainter.paint(canvas.getGraphicsContext2D(), layout, content);
                    long painted = System.nanoTime();
                    canvas.snapshot(new javafx.scene.SnapshotParameters(), null);
                    return new long[] {painted - start, System.nanoTime() - painted};
                });
                paint[frame] = times[0];
                snapshot[frame] = times[1];
                cpu[frame] = processCpuNanos() - cpuStart;
            }
            System.out.printf(Locale.ROOT, "%7d positions in view: paint mean %.1f ms (worst %.1f), paint + rasterize mean %.1f ms"
                    + " (worst %.1f; %.1f ms of CPU), over 40 frames panning across %d positions%n", visible, mean(paint),
                    worst(paint), mean(sum(paint, snapshot)), worst(sum(paint, snapshot)), mean(cpu), stretch);
        }
    }

    /** CPU time of the whole process (all threads: the JavaFX thread, the renderer, the collector). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long usedHeap() {
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static long[] sum(long[] a, long[] b) {
        long[] out = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] + b[i];
        }
        return out;
    }

    /** Mean in milliseconds, leaving out the first 5 frames (JIT warm-up). */
    private static double mean(long[] nanos) {
        long total = 0;
        for (int i = 5; i < nanos.length; i++) {
            total += nanos[i];
        }
        return total / 1e6 / (nanos.length - 5);
    }

    private static double worst(long[] nanos) {
        long worst = 0;
        for (int i = 5; i < nanos.length; i++) {
            worst = Math.max(worst, nanos[i]);
        }
        return worst / 1e6;
    }
}
