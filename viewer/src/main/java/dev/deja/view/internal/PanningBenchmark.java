package dev.deja.view.internal;

import dev.deja.bench.ViewerBenchmark;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The viewer's entry in {@code deja bench}: opens a trace into the model and draws the window's first frame, then
 * pans a 1600 by 360 pixel window with 2,000 positions in view across the middle of the trace, one frame a step.
 * A frame is what the window's next pulse does: the canvas commands and the snapshot that rasterizes them.
 */
public final class PanningBenchmark implements ViewerBenchmark {
    private static final int WIDTH_PIXELS = 1600;
    private static final int HEIGHT_PIXELS = 360;
    private static final int VISIBLE_POSITIONS = 2_000;

    public PanningBenchmark() {
    }

    @Override
    public Measurement measure(Path trace, int frames) throws Exception {
        long start = System.nanoTime();
        TraceModel model = TraceModel.open(trace);
        ArcIndex arcs = ArcIndex.of(model);
        int visible = Math.min(VISIBLE_POSITIONS, model.size());
        int stretch = Math.min(100_000, model.size());
        int base = Math.max(0, model.size() / 2 - stretch / 2);
        frame(model, arcs, base, visible);
        Duration open = Duration.ofNanos(System.nanoTime() - start);
        List<Duration> times = new ArrayList<>(frames);
        for (int frame = 0; frame < frames; frame++) {
            int first = base + (int) ((long) (stretch - visible) * frame / Math.max(1, frames - 1));
            long frameStart = System.nanoTime();
            frame(model, arcs, first, visible);
            times.add(Duration.ofNanos(System.nanoTime() - frameStart));
        }
        return new Measurement(open, times);
    }

    private static void frame(TraceModel model, ArcIndex arcs, int first, int visible) throws Exception {
        int last = Math.min(model.size() - 1, first + visible - 1);
        PictureSettings settings = PictureSettings.builder(model.size()).range(first, last).widthPixels(WIDTH_PIXELS)
                .build();
        GraphFrame content = PictureRenderer.frame(model, arcs, settings, false);
        FxToolkit.call(() -> {
            GraphLayout layout = GraphPainter.windowLayout(content, WIDTH_PIXELS, HEIGHT_PIXELS, first,
                    (double) WIDTH_PIXELS / (last - first + 1));
            javafx.scene.canvas.Canvas canvas = new javafx.scene.canvas.Canvas(WIDTH_PIXELS, HEIGHT_PIXELS);
            GraphPainter.paint(canvas.getGraphicsContext2D(), layout, content);
            canvas.snapshot(new javafx.scene.SnapshotParameters(), null);
            return null;
        });
    }
}
