package dev.deja.view.internal;

import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import javafx.scene.SnapshotParameters;
import javafx.scene.canvas.Canvas;

/**
 * Draws frames of the window's graph off screen: what the window's next pulse does, the canvas commands and the
 * snapshot that rasterizes them. The arcs of the model are indexed once, when this is made. Not thread-safe.
 */
public final class OffscreenFrames {
    private final TraceModel model;
    private final ArcIndex arcs;
    private final int widthPixels;
    private final int heightPixels;

    public OffscreenFrames(TraceModel model, int widthPixels, int heightPixels) {
        this.model = model;
        this.arcs = ArcIndex.of(model);
        this.widthPixels = widthPixels;
        this.heightPixels = heightPixels;
    }

    /** Draws the positions {@code first..last} across the whole width, on the toolkit's thread. */
    public void draw(int first, int last) {
        PictureSettings settings = PictureSettings.builder(model.size()).range(first, last).widthPixels(widthPixels)
                .build();
        GraphFrame content = PictureRenderer.frame(model, arcs, settings, false);
        FxToolkit.call(() -> {
            GraphLayout layout = GraphPainter.windowLayout(content, widthPixels, heightPixels, first,
                    (double) widthPixels / (last - first + 1));
            Canvas canvas = new Canvas(widthPixels, heightPixels);
            GraphPainter.paint(canvas.getGraphicsContext2D(), layout, content);
            canvas.snapshot(new SnapshotParameters(), null);
            return null;
        });
    }
}
