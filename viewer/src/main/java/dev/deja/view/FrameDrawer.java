package dev.deja.view;

import dev.deja.view.internal.OffscreenFrames;
import java.nio.file.Path;

/**
 * Draws the viewer window's graph off screen, one frame a call, as the window's next pulse would: for measuring
 * how fast the viewer opens a trace and draws it ({@code deja bench}). The first frame starts JavaFX's headless
 * platform when the toolkit is not running yet, so no display is needed. Not thread-safe.
 */
public final class FrameDrawer {
    private final TraceModel model;
    private final OffscreenFrames frames;

    private FrameDrawer(TraceModel model, int widthPixels, int heightPixels) {
        this.model = model;
        this.frames = new OffscreenFrames(model, widthPixels, heightPixels);
    }

    /** Opens the trace at {@code trace} into a model, as {@code deja view} does, for a window of this size. */
    public static FrameDrawer open(Path trace, int widthPixels, int heightPixels) {
        return new FrameDrawer(TraceModel.open(trace), widthPixels, heightPixels);
    }

    /** The opened trace. */
    public TraceModel model() {
        return model;
    }

    /** Draws the positions {@code first..last} (inclusive) across the window's width. */
    public void draw(int first, int last) {
        frames.draw(first, last);
    }
}
