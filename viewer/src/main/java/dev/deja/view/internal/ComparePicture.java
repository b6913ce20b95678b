package dev.deja.view.internal;

import dev.deja.view.ComparisonSettings;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceComparison;
import dev.deja.view.TraceComparison.Side;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.geometry.VPos;
import javafx.scene.SnapshotParameters;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.image.PixelFormat;
import javafx.scene.image.WritableImage;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.TextAlignment;

/**
 * A picture of two compared runs: run A's graph above run B's, each around the compared step with the common
 * prefix faded and the step ringed, and under them every node's state in both runs at that step, the members
 * that differ as Mdb shows them ({@code -} run A in red, {@code +} run B in green).
 *
 * <p>Of a node whose state differs, its top-level members are all listed and, below them, every member on the
 * way to a difference; at most {@value #MAX_LINES_PER_NODE} lines a node. Nodes whose states are equal are named
 * on one line.
 */
final class ComparePicture {
    /** Positions shown before and after the compared step. */
    static final int BEFORE = 100;
    static final int AFTER = 40;
    static final int MAX_LINES_PER_NODE = 40;
    private static final Font MONO = Font.font("DejaVu Sans Mono", 11);
    private static final Font BOLD = Font.font(Palette.FONT_FAMILY, FontWeight.BOLD, 12);
    private static final double LINE_HEIGHT = 15;
    private static final Color REMOVED_TEXT = Color.web("#c62828");
    private static final Color REMOVED_BACKGROUND = Color.web("#fde8e8");
    private static final Color ADDED_TEXT = Color.web("#1a7f37");
    private static final Color ADDED_BACKGROUND = Color.web("#e6f4ea");
    private static final Color ON_THE_WAY = Color.web("#b35900");

    private ComparePicture() {
    }

    /** One line of the state panel: its text, colour, background (or null) and font. */
    record Line(String text, Color color, Color background, Font font) {
    }

    /** Renders the picture; the toolkit must be running. */
    static PictureRenderer.Picture render(TraceComparison comparison, ComparisonSettings settings, ComparedStates states) {
        TraceModel a = comparison.a();
        TraceModel b = comparison.b();
        int[] rangeA = range(a, states.positionA());
        int[] rangeB = range(b, states.positionB());
        int width = settings.widthPixels() > 0 ? settings.widthPixels()
                : PictureRenderer.defaultWidth(Math.max(rangeA[1] - rangeA[0], rangeB[1] - rangeB[0]) + 1);
        PictureRenderer.Picture graphA = graph(comparison, Side.A, states.positionA(), rangeA, width);
        PictureRenderer.Picture graphB = graph(comparison, Side.B, states.positionB(), rangeB, width);
        List<Line> lines = lines(comparison, states);
        PictureRenderer.Picture panel = FxToolkit.call(() -> panel(lines, width));
        int height = graphA.height() + graphB.height() + panel.height();
        int[] argb = new int[width * height];
        System.arraycopy(graphA.argb(), 0, argb, 0, graphA.argb().length);
        System.arraycopy(graphB.argb(), 0, argb, graphA.argb().length, graphB.argb().length);
        System.arraycopy(panel.argb(), 0, argb, graphA.argb().length + graphB.argb().length, panel.argb().length);
        return new PictureRenderer.Picture(graphA.layout(), width, height, argb);
    }

    /** Writes the picture as PNG. */
    static void writePng(TraceComparison comparison, ComparisonSettings settings, ComparedStates states, Path file) {
        PictureRenderer.write(PictureRenderer.png(render(comparison, settings, states)), file);
    }

    private static int[] range(TraceModel model, int step) {
        int from = Math.max(0, step - BEFORE);
        int to = Math.min(model.size() - 1, step + AFTER);
        return new int[] {from, to};
    }

    private static PictureRenderer.Picture graph(TraceComparison comparison, Side side, int step, int[] range, int width) {
        TraceModel model = comparison.model(side);
        PictureSettings settings = PictureSettings.builder(model.size()).range(range[0], range[1])
                .selected(step, PictureSettings.Highlight.MARK).build();
        String first = comparison.firstDifference(side).isPresent()
                ? "first difference at " + comparison.firstDifference(side).getAsInt() : "no difference";
        String title = String.format(Locale.ROOT, "%s: %s   positions %d..%d of %d   common prefix faded (%d entries), %s,"
                        + " ringed: the compared step %d", side, Comparisons.shortName(model), range[0], range[1],
                model.size(), comparison.commonSize(), first, step);
        GraphFrame frame = PictureRenderer.frame(model, ArcIndex.of(model), settings, true)
                .withFaded(comparison.common(side), title);
        return PictureRenderer.render(frame, width, range[0], range[1]);
    }

    /** The state panel's lines (see the class comment). */
    static List<Line> lines(TraceComparison comparison, ComparedStates states) {
        List<Line> lines = new ArrayList<>();
        lines.add(new Line(String.format(Locale.ROOT, "State of every node after its entries up to A position %d (in B after"
                        + " as many of its own entries): %d of %d differ   (- A, + B)", states.positionA(),
                states.differingNodes(), states.nodes().size()), Palette.TEXT, null, BOLD));
        List<String> same = new ArrayList<>();
        for (ComparedStates.NodeStates node : states.nodes()) {
            if (!node.differs()) {
                same.add(node.node().value());
                continue;
            }
            lines.add(new Line(node.node() + ": " + ComparedStates.changes(node.diff()) + " member(s) differ",
                    Palette.TEXT, null, BOLD));
            List<ComparedStates.DiffLine> shown = ComparedStates.lines(node.diff()).stream()
                    .filter(line -> line.depth() >= 1 && (line.depth() == 1 || line.differs())).toList();
            for (int i = 0; i < Math.min(shown.size(), MAX_LINES_PER_NODE); i++) {
                ComparedStates.DiffLine line = shown.get(i);
                String text = line.mark() + " " + "  ".repeat(line.depth() - 1) + line.text();
                lines.add(switch (line.mark()) {
                    case '-' -> new Line(text, REMOVED_TEXT, REMOVED_BACKGROUND, MONO);
                    case '+' -> new Line(text, ADDED_TEXT, ADDED_BACKGROUND, MONO);
                    default -> new Line(text, line.differs() ? ON_THE_WAY : Palette.FAINT_TEXT, null, MONO);
                });
            }
            if (shown.size() > MAX_LINES_PER_NODE) {
                lines.add(new Line("  … " + (shown.size() - MAX_LINES_PER_NODE) + " more line(s): deja view --compare"
                        + " --text lists them", Palette.FAINT_TEXT, null, MONO));
            }
        }
        if (!same.isEmpty()) {
            lines.add(new Line("the same in A and B: " + String.join(", ", same), Palette.FAINT_TEXT, null, BOLD));
        }
        return lines;
    }

    private static PictureRenderer.Picture panel(List<Line> lines, int width) {
        int height = (int) Math.min(PictureRenderer.MAX_HEIGHT_PIXELS, Math.ceil(lines.size() * LINE_HEIGHT + 16));
        Canvas canvas = new Canvas(width, height);
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.setFill(Palette.BACKGROUND);
        g.fillRect(0, 0, width, height);
        g.setStroke(Palette.GRID);
        g.strokeLine(0, 0.5, width, 0.5);
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        double y = 8;
        for (Line line : lines) {
            if (line.background() != null) {
                g.setFill(line.background());
                g.fillRect(6, y, width - 12, LINE_HEIGHT);
            }
            g.setFont(line.font());
            g.setFill(line.color());
            g.fillText(line.text(), 10, y + LINE_HEIGHT / 2);
            y += LINE_HEIGHT;
        }
        WritableImage image = canvas.snapshot(new SnapshotParameters(), null);
        int[] argb = new int[width * height];
        image.getPixelReader().getPixels(0, 0, width, height, PixelFormat.getIntArgbInstance(), argb, 0, width);
        return new PictureRenderer.Picture(null, width, height, argb);
    }
}
