package dev.deja.view.internal;

import dev.deja.view.Cone;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.Locale;
import javafx.scene.SnapshotParameters;
import javafx.scene.canvas.Canvas;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javax.imageio.ImageIO;

/** Renders {@link PictureSettings} of a model into pixels and PNG files, without a window. */
public final class PictureRenderer {
    /** The tallest picture drawn, in pixels (the software renderer's snapshots stay well within memory). */
    static final int MAX_HEIGHT_PIXELS = 16_000;

    private PictureRenderer() {
    }

    /** A rendered picture: its geometry and its pixels (ARGB, row by row). */
    record Picture(GraphLayout layout, int width, int height, int[] argb) {
        int pixel(double x, double y) {
            return argb[(int) y * width + (int) x];
        }
    }

    /** The width chosen when the settings leave it open: about 10 pixels a position, within bounds. */
    static int defaultWidth(int positions) {
        return (int) Math.max(640, Math.min(2_400, 180L + positions * 10L));
    }

    /** Builds the frame the settings describe. */
    static GraphFrame frame(TraceModel model, ArcIndex arcs, PictureSettings settings, boolean withTitle) {
        BitSet shown = settings.filter().isAll() ? null : model.matching(settings.filter());
        int[] rowOfLane = new int[model.nodes().size()];
        int row = 0;
        for (int lane = 0; lane < rowOfLane.length; lane++) {
            boolean laneShown = settings.filter().nodes().isEmpty() || settings.filter().nodes().contains(model.nodes().get(lane));
            rowOfLane[lane] = laneShown ? row++ : -1;
        }
        int selected = settings.selected().orElse(-1);
        if (selected >= model.size()) {
            throw new IllegalArgumentException(model.name() + ": position " + selected + " is past the end of the trace (last: "
                    + (model.size() - 1) + ")");
        }
        Cone cone = selected >= 0 && settings.highlight() == PictureSettings.Highlight.CONE ? model.cone(selected) : null;
        String title = null;
        if (withTitle) {
            int to = Math.min(settings.toPosition(), model.size() - 1);
            // The trace directory's own name: the picture of a trace is the same wherever the trace lies.
            Path name = Path.of(model.name()).getFileName();
            title = String.format(Locale.ROOT, "%s   positions %d..%d of %d%s", name == null ? model.name() : name,
                    settings.fromPosition(), to,
                    model.size(), settings.filter().isAll() ? "" : "   (filtered)");
        }
        return new GraphFrame(model, arcs, shown, rowOfLane, selected, cone, settings.violations(), settings::isDark,
                title, true);
    }

    /** Renders the picture; the toolkit is started headless if it is not running. */
    static Picture render(TraceModel model, PictureSettings settings) {
        return render(model, ArcIndex.of(model), settings);
    }

    /** Renders the picture and returns its pixels (ARGB, row by row); for measurements. */
    public static int[] renderPixels(TraceModel model, PictureSettings settings) {
        return render(model, settings).argb();
    }

    static Picture render(TraceModel model, ArcIndex arcs, PictureSettings settings) {
        if (model.size() == 0) {
            throw new IllegalArgumentException(model.name() + ": the trace holds no entries; nothing to draw");
        }
        if (settings.fromPosition() >= model.size()) {
            throw new IllegalArgumentException(model.name() + ": --from " + settings.fromPosition()
                    + " is past the end of the trace (positions 0.." + (model.size() - 1) + ")");
        }
        int to = Math.min(settings.toPosition(), model.size() - 1);
        int width = settings.widthPixels() > 0 ? settings.widthPixels() : defaultWidth(to - settings.fromPosition() + 1);
        return render(frame(model, arcs, settings, true), width, settings.fromPosition(), to);
    }

    /** Renders {@code frame}'s positions {@code from..to} into a picture {@code width} pixels wide. */
    static Picture render(GraphFrame frame, int width, int from, int to) {
        return FxToolkit.call(() -> {
            GraphLayout layout = GraphPainter.pictureLayout(frame, width, from, to);
            int height = (int) Math.min(MAX_HEIGHT_PIXELS, layout.height);
            Canvas canvas = new Canvas(width, height);
            GraphPainter.paint(canvas.getGraphicsContext2D(), layout, frame);
            WritableImage image = canvas.snapshot(new SnapshotParameters(), null);
            int[] argb = new int[width * height];
            image.getPixelReader().getPixels(0, 0, width, height, PixelFormat.getIntArgbInstance(), argb, 0, width);
            return new Picture(layout, width, height, argb);
        });
    }

    /** Encodes a picture as PNG (the same pixels always give the same bytes). */
    static byte[] png(Picture picture) {
        BufferedImage image = new BufferedImage(picture.width(), picture.height(), BufferedImage.TYPE_INT_RGB);
        image.setRGB(0, 0, picture.width(), picture.height(), picture.argb(), 0, picture.width());
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the picture as PNG", e);
        }
        return bytes.toByteArray();
    }

    /** Renders and writes a PNG file. */
    public static void writePng(TraceModel model, PictureSettings settings, Path file) {
        write(png(render(model, settings)), file);
    }

    /** Writes PNG bytes to {@code file}, creating its directory. */
    static void write(byte[] bytes, Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the picture to " + file + ": " + e.getMessage(), e);
        }
    }
}
