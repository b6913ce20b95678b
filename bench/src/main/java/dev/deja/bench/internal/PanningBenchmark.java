package dev.deja.bench.internal;

import dev.deja.view.FrameDrawer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The viewer's measurement: opens a trace into the model and draws the window's first frame, then pans a 1600 by
 * 360 pixel window with 2,000 positions in view across the middle of the trace, one frame a step.
 */
final class PanningBenchmark {
    private static final int WIDTH_PIXELS = 1600;
    private static final int HEIGHT_PIXELS = 360;
    private static final int VISIBLE_POSITIONS = 2_000;

    /** What one measurement saw: the time to the first frame, and each panning frame's time. */
    record Measurement(Duration open, List<Duration> frames) {
        Measurement {
            frames = List.copyOf(frames);
        }
    }

    private PanningBenchmark() {
    }

    /** Opens {@code trace} (until the first frame is drawn), then draws {@code frames} frames, each panned further. */
    static Measurement measure(Path trace, int frames) {
        long start = System.nanoTime();
        FrameDrawer drawer = FrameDrawer.open(trace, WIDTH_PIXELS, HEIGHT_PIXELS);
        int size = drawer.model().size();
        int visible = Math.min(VISIBLE_POSITIONS, size);
        int stretch = Math.min(100_000, size);
        int base = Math.max(0, size / 2 - stretch / 2);
        frame(drawer, size, base, visible);
        Duration open = Duration.ofNanos(System.nanoTime() - start);
        List<Duration> times = new ArrayList<>(frames);
        for (int frame = 0; frame < frames; frame++) {
            int first = base + (int) ((long) (stretch - visible) * frame / Math.max(1, frames - 1));
            long frameStart = System.nanoTime();
            frame(drawer, size, first, visible);
            times.add(Duration.ofNanos(System.nanoTime() - frameStart));
        }
        return new Measurement(open, times);
    }

    private static void frame(FrameDrawer drawer, int size, int first, int visible) {
        drawer.draw(first, Math.min(size - 1, first + visible - 1));
    }
}
