package dev.deja.view.internal;

import dev.deja.check.Violation;
import dev.deja.trace.EventKind;
import dev.deja.view.Segment;
import dev.deja.view.TraceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.shape.StrokeLineCap;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * Draws a {@link GraphFrame} on a canvas: only the visible window of positions is visited (arcs through the
 * {@link ArcIndex}), never one scene-graph node per event. When several positions share a pixel column,
 * marks and arcs that would land on the same pixels are drawn once, so a frame costs at most about one mark
 * per lane per pixel column however many events the window spans. Call on the JavaFX thread.
 */
final class GraphPainter {
    /** Below this zoom, observations (clock, random, storage reads) are not drawn: they would only add grey. */
    private static final double OBSERVATIONS_FROM_PIXELS = 3;
    /** Below this zoom, arrowheads are left out. */
    private static final double ARROWS_FROM_PIXELS = 2;

    private GraphPainter() {
    }

    /** One entry of the legend. */
    private record LegendItem(Symbol symbol, String text, Color color) {
    }

    private enum Symbol { MESSAGE, TIMER, LOST, OUTSIDE, HIDDEN, CRASH, VIOLATION, DARK, LIGHT, SELECTED, BAND, FADED }

    // ---- layout ----

    /**
     * A layout for a picture of positions {@code from..to} that is {@code width} pixels wide (lanes at full
     * height), with the frame's title, stripe and legend.
     */
    static GraphLayout pictureLayout(GraphFrame frame, double width, int from, int to) {
        double leftMargin = leftMargin(frame);
        double graphWidth = width - leftMargin - GraphLayout.RIGHT_PAD;
        double pixelsPerEvent = graphWidth / (to - from + 1);
        int legendLines = frame.legend() ? legendLines(legend(frame, from, to), width) : 0;
        return new GraphLayout(width, leftMargin, frame.title() != null, frame.rowOfLane(), GraphLayout.LANE_HEIGHT,
                from, pixelsPerEvent, frame.predicates().size(), legendLines);
    }

    /**
     * A layout for a window of {@code width} by {@code height} pixels starting at {@code firstPosition}: lanes
     * shrink (to a minimum) so that they and the stripe fit the height.
     */
    static GraphLayout windowLayout(GraphFrame frame, double width, double height, double firstPosition,
                                    double pixelsPerEvent) {
        double leftMargin = leftMargin(frame);
        int rows = 0;
        for (int row : frame.rowOfLane()) {
            rows = Math.max(rows, row + 1);
        }
        int stripeRows = frame.predicates().size();
        int legendLines = 0;
        if (frame.legend()) {
            int from = (int) Math.max(0, Math.floor(firstPosition));
            int to = (int) Math.min(frame.model().size() - 1L, (long) Math.ceil(firstPosition + width / pixelsPerEvent));
            legendLines = legendLines(legend(frame, from, to), width);
        }
        double fixed = GraphLayout.AXIS_HEIGHT + GraphLayout.STRIPE_GAP + stripeRows * GraphLayout.STRIPE_ROW_HEIGHT + 8
                + (legendLines == 0 ? 0 : GraphLayout.LEGEND_GAP + legendLines * GraphLayout.LEGEND_LINE_HEIGHT);
        double laneHeight = rows == 0 ? GraphLayout.LANE_HEIGHT
                : Math.max(GraphLayout.MIN_LANE_HEIGHT, Math.min(GraphLayout.LANE_HEIGHT * 1.5, (height - fixed) / rows));
        return new GraphLayout(width, leftMargin, false, frame.rowOfLane(), laneHeight, firstPosition, pixelsPerEvent,
                stripeRows, legendLines);
    }

    private static double leftMargin(GraphFrame frame) {
        double widest = 30;
        TraceModel model = frame.model();
        for (int lane = 0; lane < model.nodes().size(); lane++) {
            if (frame.rowOfLane()[lane] >= 0) {
                widest = Math.max(widest, textWidth(model.nodes().get(lane).value(), Palette.FONT));
            }
        }
        for (String predicate : frame.predicates()) {
            widest = Math.max(widest, textWidth(predicate, Palette.SMALL_FONT));
        }
        return Math.ceil(Math.min(widest, 220) + 14);
    }

    static double textWidth(String text, Font font) {
        Text measure = new Text(text);
        measure.setFont(font);
        return measure.getLayoutBounds().getWidth();
    }

    // ---- painting ----

    /** Paints the whole frame into a canvas of the layout's size. */
    static void paint(GraphicsContext g, GraphLayout layout, GraphFrame frame) {
        TraceModel model = frame.model();
        g.save();
        g.setFill(Palette.BACKGROUND);
        g.fillRect(0, 0, layout.width, layout.height);
        g.setLineCap(StrokeLineCap.BUTT);
        int from = layout.firstVisible();
        int to = Math.min(model.size() - 1, layout.lastVisible());
        if (frame.title() != null) {
            text(g, frame.title(), 6, GraphLayout.TITLE_HEIGHT / 2 + 1, Palette.FONT, Palette.TEXT, TextAlignment.LEFT);
        }
        g.save();
        clipToGraph(g, layout);
        axisLines(g, layout, from, to);
        if (to >= from) {
            coneBands(g, layout, frame, from, to);
            lanes(g, layout, frame, from, to);
            arcs(g, layout, frame, from, to);
            selectedMessage(g, layout, frame);
            marks(g, layout, frame, from, to);
            rings(g, layout, frame, from, to);
        }
        g.restore();
        axisLabels(g, layout, from, to);
        laneLabels(g, layout, model);
        stripe(g, layout, frame, from, to);
        if (layout.legendLines > 0) {
            legendPaint(g, layout, legend(frame, from, to));
        }
        g.restore();
    }

    private static void clipToGraph(GraphicsContext g, GraphLayout layout) {
        g.beginPath();
        g.rect(layout.graphLeft(), 0, layout.graphWidth(), layout.height);
        g.closePath();
        g.clip();
    }

    /** The positions that get a tick: multiples of a step that leaves at least 70 pixels between ticks. */
    private static long[] ticks(GraphLayout layout, int from, int to) {
        long step = (long) niceStep(70 / layout.pixelsPerEvent);
        long first = (from + step - 1) / step * step;
        int count = to < first ? 0 : (int) ((to - first) / step + 1);
        long[] ticks = new long[count];
        for (int i = 0; i < count; i++) {
            ticks[i] = first + i * step;
        }
        return ticks;
    }

    private static void axisLines(GraphicsContext g, GraphLayout layout, int from, int to) {
        double axisBottom = layout.lanesTop - 2;
        double lanesBottom = layout.lanesTop + layout.rows * layout.laneHeight;
        g.setLineWidth(1);
        for (long tick : ticks(layout, from, to)) {
            double x = Math.floor(layout.x(tick)) + 0.5;
            g.setStroke(Palette.GRID);
            g.strokeLine(x, axisBottom, x, lanesBottom);
            g.setStroke(Palette.FAINT_TEXT);
            g.strokeLine(x, axisBottom - 4, x, axisBottom);
        }
    }

    /** Tick labels, drawn unclipped so that a label near an edge is whole; ticks outside the graph get none. */
    private static void axisLabels(GraphicsContext g, GraphLayout layout, int from, int to) {
        for (long tick : ticks(layout, from, to)) {
            double x = Math.floor(layout.x(tick)) + 0.5;
            if (x >= layout.graphLeft() && x <= layout.graphLeft() + layout.graphWidth()) {
                text(g, Long.toString(tick), x, layout.titleHeight + 7, Palette.SMALL_FONT, Palette.FAINT_TEXT,
                        TextAlignment.CENTER);
            }
        }
    }

    /** The smallest 1, 2 or 5 times a power of ten that is at least {@code minimum} (and at least 1). */
    static double niceStep(double minimum) {
        double step = 1;
        while (true) {
            for (int factor : new int[] {1, 2, 5}) {
                if (step * factor >= minimum) {
                    return step * factor;
                }
            }
            step *= 10;
        }
    }

    private static void lanes(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        TraceModel model = frame.model();
        double pad = Math.max(3, layout.pixelsPerEvent * 0.5);
        for (int lane = 0; lane < model.nodes().size(); lane++) {
            double y = layout.laneY(lane);
            if (Double.isNaN(y)) {
                continue;
            }
            for (Segment segment : model.segments(lane)) {
                if (segment.lastPosition() < from || segment.firstPosition() > to) {
                    continue;
                }
                double start = layout.x(segment.firstPosition()) - pad;
                double end = layout.x(segment.lastPosition()) + pad;
                g.setStroke(Palette.LANE);
                g.setLineWidth(1.5);
                g.strokeLine(start, y, end, y);
                if (segment.incarnation() > 1 && end - start > 40) {
                    text(g, "inc " + segment.incarnation(), start + 2, y + layout.laneHeight * 0.32,
                            Palette.SMALL_FONT, Palette.FAINT_TEXT, TextAlignment.LEFT);
                }
                if (segment.crashed()) {
                    g.setStroke(Palette.CRASH);
                    g.setLineWidth(2);
                    cross(g, end + 2, y, 4);
                }
            }
        }
    }

    /** Whether the entry at {@code position} is on a lane the frame hides (its node filtered out). */
    private static boolean onHiddenLane(GraphFrame frame, int position) {
        return frame.rowOfLane()[frame.model().laneOf(position)] < 0;
    }

    private static void arcs(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        TraceModel model = frame.model();
        boolean coarse = layout.pixelsPerEvent < 1;
        // Zoomed out, arc ends snap to a grid of a few pixels and arcs that then coincide are drawn once: the
        // picture looks the same at that scale, and the rasterizer's work stays bounded by the pixels, not by
        // the number of messages in view.
        double grid = snapGrid(layout.pixelsPerEvent);
        LongSet drawn = coarse ? new LongSet() : null;
        double ppe = layout.pixelsPerEvent;
        double width = coarse ? 1 : 1.3;
        boolean arrows = ppe >= ARROWS_FROM_PIXELS;
        PathBatches batches = new PathBatches();
        List<double[]> stubLabels = new ArrayList<>();
        List<String> stubTexts = new ArrayList<>();
        frame.arcs().forEachCrossing(from, to, arc -> {
            int send = model.arcSend(arc);
            int receive = model.arcReceive(arc);
            boolean sendHidden = send >= 0 && onHiddenLane(frame, send);
            boolean receiveHidden = receive >= 0 && onHiddenLane(frame, receive);
            if (sendHidden && receiveHidden || sendHidden && receive < 0 || receiveHidden && send < 0) {
                return;
            }
            if ((send >= 0 && !sendHidden && !frame.isShown(send)) || (receive >= 0 && !receiveHidden && !frame.isShown(receive))) {
                return;
            }
            int end = send >= 0 ? send : receive;
            if (sendHidden || receiveHidden) {
                // One end is on a lane filtered out: a short stub from the shown end, labelled with the node at
                // the other end, pointing up or down to where that lane would be.
                int shownEnd = sendHidden ? receive : send;
                int hiddenEnd = sendHidden ? send : receive;
                double x = layout.x(shownEnd);
                double y = layout.laneY(model.laneOf(shownEnd));
                double dy = (model.laneOf(hiddenEnd) < model.laneOf(shownEnd) ? -1 : 1) * layout.laneHeight * 0.38;
                double dx = sendHidden ? -10 : 10;
                boolean lit = frame.isLit(shownEnd);
                Color color = Palette.message(model.messageType(end));
                double alpha = frame.alpha(shownEnd);
                PathBatches.Path path = batches.stroke(color, alpha, width, false);
                if (sendHidden) {
                    path.line(x + dx, y + dy, x, y);
                    if (arrows) {
                        arrowHead(batches.fill(color, alpha), x + dx, y + dy, x, y, 4);
                    }
                } else {
                    path.line(x, y, x + dx, y + dy);
                    if (arrows) {
                        arrowHead(batches.fill(color, alpha), x, y, x + dx, y + dy, 4);
                    }
                }
                if (arrows && lit) {
                    stubLabels.add(new double[] {x + dx, y + dy + (dy < 0 ? -4 : 4), sendHidden ? 1 : 0});
                    stubTexts.add(model.nodes().get(model.laneOf(hiddenEnd)).value());
                }
                return;
            }
            double sendY = send >= 0 ? layout.laneY(model.laneOf(send)) : Double.NaN;
            double receiveY = receive >= 0 ? layout.laneY(model.laneOf(receive)) : Double.NaN;
            if (coarse) {
                long key = ((long) (snap(layout.x(send >= 0 ? send : receive), grid) / grid) & 0xFFFFF) << 44
                        | ((long) (snap(layout.x(receive >= 0 ? receive : send), grid) / grid) & 0xFFFFF) << 24
                        | ((long) (send >= 0 ? model.laneOf(send) : 0xFFF) & 0xFFF) << 12
                        | ((long) (receive >= 0 ? model.laneOf(receive) : 0xFFF) & 0xFFF);
                if (!drawn.add(key)) {
                    return;
                }
            }
            double alpha = Math.min(send < 0 ? 1 : frame.alpha(send), receive < 0 ? 1 : frame.alpha(receive));
            Color color = Palette.message(model.messageType(end));
            if (send >= 0 && receive >= 0) {
                double x1 = coarse ? snap(layout.x(send), grid) : layout.x(send);
                double x2 = coarse ? snap(layout.x(receive), grid) : layout.x(receive);
                PathBatches.Path path = batches.stroke(color, alpha, width, false);
                if (sendY == receiveY) {
                    // A message to itself: a loop over the lane.
                    double lift = Math.min(layout.laneHeight * 0.45, 6 + (x2 - x1) * 0.25);
                    path.quad(x1, sendY, (x1 + x2) / 2, sendY - 2 * lift, x2, receiveY);
                } else {
                    path.line(x1, sendY, x2, receiveY);
                    if (arrows) {
                        arrowHead(batches.fill(color, alpha), x1, sendY, x2, receiveY, Math.min(7, 2 + ppe * 0.6));
                    }
                }
            } else if (send >= 0) {
                double x = layout.x(send);
                int toLane = model.peerLane(send);
                if (toLane >= 0) {
                    // Sent to a recorded node that never received it: a dashed line to the lane it was sent to
                    // (or towards it, when that lane is hidden), ending in a cross.
                    double toY = layout.laneY(toLane);
                    double reach = Math.max(8, Math.min(40, ppe * 3));
                    double endX = x + reach;
                    double endY = !Double.isNaN(toY) ? toY
                            : sendY + (toLane < model.laneOf(send) ? -1 : 1) * layout.laneHeight * 0.38;
                    batches.stroke(color, alpha, width, true).line(x, sendY, endX, endY);
                    cross(batches.stroke(color, alpha, 1.3, false), endX, endY, 2.5);
                } else {
                    outsideStub(batches, color, alpha, x, sendY, x + 8, sendY - layout.laneHeight * 0.38, arrows);
                }
            } else {
                double x = layout.x(receive);
                outsideStub(batches, color, alpha, x - 8, receiveY - layout.laneHeight * 0.38, x, receiveY, arrows);
            }
        });
        batches.draw(g);
        for (int i = 0; i < stubLabels.size(); i++) {
            double[] at = stubLabels.get(i);
            text(g, stubTexts.get(i), at[0], at[1], Palette.SMALL_FONT, Palette.FAINT_TEXT,
                    at[2] > 0 ? TextAlignment.RIGHT : TextAlignment.LEFT);
        }
    }

    /**
     * The selected event's message, end to end, drawn again over the others: thick, in the selection's colour
     * under the message's own colour, so it stands out among crossing arcs.
     */
    private static void selectedMessage(GraphicsContext g, GraphLayout layout, GraphFrame frame) {
        TraceModel model = frame.model();
        int selected = frame.selected();
        if (selected < 0 || model.messageType(selected) < 0) {
            return;
        }
        int send = model.type(selected) == EventKind.SEND ? selected : model.counterpart(selected);
        int receive = model.type(selected) == EventKind.SEND ? model.counterpart(selected) : selected;
        if (send < 0 || receive < 0 || onHiddenLane(frame, send) || onHiddenLane(frame, receive)) {
            return;
        }
        double x1 = layout.x(send);
        double y1 = layout.laneY(model.laneOf(send));
        double x2 = layout.x(receive);
        double y2 = layout.laneY(model.laneOf(receive));
        Color color = Palette.message(model.messageType(selected));
        for (int pass = 0; pass < 2; pass++) {
            g.setStroke(pass == 0 ? Palette.SELECTED_MESSAGE : color);
            g.setLineWidth(pass == 0 ? 5 : 2.2);
            if (y1 == y2) {
                double lift = Math.min(layout.laneHeight * 0.45, 6 + (x2 - x1) * 0.25);
                g.beginPath();
                g.moveTo(x1, y1);
                g.quadraticCurveTo((x1 + x2) / 2, y1 - 2 * lift, x2, y2);
                g.stroke();
            } else {
                g.strokeLine(x1, y1, x2, y2);
            }
        }
    }

    /**
     * The selected event's cone in two tones behind the lanes: on each lane the stretch of its causes (its
     * past, a prefix of the lane) and of its effects (its future, a suffix).
     */
    private static void coneBands(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        if (frame.cone() == null) {
            return;
        }
        TraceModel model = frame.model();
        double pad = Math.max(3, layout.pixelsPerEvent * 0.5);
        double half = Math.min(9, layout.laneHeight * 0.3);
        for (int lane = 0; lane < model.nodes().size(); lane++) {
            double y = layout.laneY(lane);
            int size = model.laneSize(lane);
            if (Double.isNaN(y) || size == 0) {
                continue;
            }
            int lastPast = frame.cone().lastPastOrdinal(lane);
            if (lastPast >= 0) {
                band(g, layout, layout.x(model.positionOf(lane, 0)) - pad,
                        layout.x(model.positionOf(lane, lastPast)) + pad, y, half, Palette.CAUSES);
            }
            int firstFuture = frame.cone().firstFutureOrdinal(lane);
            if (firstFuture < size) {
                band(g, layout, layout.x(model.positionOf(lane, firstFuture)) - pad,
                        layout.x(model.positionOf(lane, size - 1)) + pad, y, half, Palette.EFFECTS);
            }
        }
    }

    /**
     * One band from {@code start} to {@code end}, cut to the graph area first: a band reaching back to the
     * trace's start lies tens of thousands of pixels off the canvas, which some pipelines do not fill.
     */
    private static void band(GraphicsContext g, GraphLayout layout, double start, double end, double y, double half,
                             Color color) {
        double left = Math.max(start, layout.graphLeft() - 1);
        double right = Math.min(end, layout.graphLeft() + layout.graphWidth() + 1);
        if (right > left) {
            g.setFill(color);
            g.fillRect(left, y - half, right - left, 2 * half);
        }
    }

    /** The grid arc ends snap to at this zoom: 1 pixel down to a tenth of a pixel per position, then 2, then 4. */
    static double snapGrid(double pixelsPerEvent) {
        return pixelsPerEvent >= 0.1 ? 1 : pixelsPerEvent >= 0.02 ? 2 : 4;
    }

    /** {@code x} moved to the middle of its grid cell. */
    private static double snap(double x, double grid) {
        return Math.floor(x / grid) * grid + grid / 2;
    }

    private static void outsideStub(PathBatches batches, Color color, double alpha, double x1, double y1, double x2,
                                    double y2, boolean arrow) {
        batches.stroke(Palette.OUTSIDE, alpha, 1, true).line(x1, y1, x2, y2);
        if (arrow) {
            arrowHead(batches.fill(color, alpha), x1, y1, x2, y2, 4);
        }
    }

    private static void arrowHead(PathBatches.Path path, double x1, double y1, double x2, double y2, double size) {
        double angle = Math.atan2(y2 - y1, x2 - x1);
        double half = size * 0.45;
        double bx = x2 - size * Math.cos(angle);
        double by = y2 - size * Math.sin(angle);
        path.triangle(x2, y2, bx + half * Math.sin(angle), by - half * Math.cos(angle),
                bx - half * Math.sin(angle), by + half * Math.cos(angle));
    }

    /** The radius of an event mark at this zoom. */
    private static double radius(GraphLayout layout) {
        return Math.max(1.5, Math.min(4, layout.pixelsPerEvent * 0.35));
    }

    private static void marks(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        TraceModel model = frame.model();
        boolean coarse = layout.pixelsPerEvent < 1;
        double r = radius(layout);
        int[] lastColumn = new int[model.nodes().size()];
        Arrays.fill(lastColumn, Integer.MIN_VALUE);
        PathBatches batches = new PathBatches();
        for (int position = from; position <= to; position++) {
            if (!frame.isShown(position)) {
                continue;
            }
            int lane = model.laneOf(position);
            double y = layout.laneY(lane);
            if (Double.isNaN(y)) {
                continue;
            }
            EventKind type = model.type(position);
            boolean observation = type == EventKind.CLOCK || type == EventKind.RANDOM || type == EventKind.STORAGE_READ;
            if (observation && layout.pixelsPerEvent < OBSERVATIONS_FROM_PIXELS) {
                continue;
            }
            double x = layout.x(position);
            if (coarse) {
                int column = (int) x;
                if (column == lastColumn[lane]) {
                    continue;
                }
                lastColumn[lane] = column;
            }
            double alpha = frame.alpha(position);
            if (coarse && type != EventKind.CRASH) {
                // Zoomed out, a mark is a short tick in its colour: shapes would only blur into each other.
                Color color = switch (type) {
                    case RECEIVE, SEND -> Palette.message(model.messageType(position));
                    case TIMER -> Palette.TIMER;
                    default -> Palette.START;
                };
                batches.fill(color, alpha).rect(Math.floor(x), y - 3, 1, 6);
                continue;
            }
            switch (type) {
                case RECEIVE -> batches.fill(Palette.message(model.messageType(position)), alpha).circle(x, y, r + 0.5);
                case SEND -> batches.fill(Palette.message(model.messageType(position)), alpha).circle(x, y, r * 0.6);
                case START -> batches.fill(Palette.START, alpha).rect(x - r, y - r, 2 * r, 2 * r);
                case TIMER -> {
                    PathBatches.Path path = batches.stroke(Palette.TIMER, alpha, 1.2, false);
                    path.circle(x, y, r);
                    double lift = Math.min(layout.laneHeight * 0.42, 4 * r + 6);
                    path.cubic(x - 1.2, y - r, x - r - 5, y - lift - 3, x + r + 5, y - lift - 3, x + 1.2, y - r);
                }
                case CRASH -> cross(batches.stroke(Palette.CRASH, alpha, 2, false), x, y, r + 1.5);
                case CLOCK, RANDOM, STORAGE_READ -> batches.fill(Palette.OBSERVATION, alpha).rect(x - 0.5, y - 3, 1, 6);
            }
        }
        batches.draw(g);
    }

    private static void rings(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        TraceModel model = frame.model();
        double r = radius(layout);
        g.setLineWidth(2);
        g.setStroke(Palette.VIOLATION_RING);
        for (Violation violation : frame.violations()) {
            long position = violation.event().position();
            if (position < from || position > to) {
                continue;
            }
            double y = layout.laneY(model.laneOf((int) position));
            if (!Double.isNaN(y)) {
                double ring = r + 4;
                g.strokeOval(layout.x(position) - ring, y - ring, 2 * ring, 2 * ring);
            }
        }
        int selected = frame.selected();
        if (selected >= from && selected <= to) {
            double y = layout.laneY(model.laneOf(selected));
            if (!Double.isNaN(y)) {
                double ring = r + 7;
                g.setStroke(Palette.SELECTION);
                g.setLineWidth(1.5);
                g.strokeOval(layout.x(selected) - ring, y - ring, 2 * ring, 2 * ring);
            }
        }
    }

    private static void laneLabels(GraphicsContext g, GraphLayout layout, TraceModel model) {
        for (int lane = 0; lane < model.nodes().size(); lane++) {
            double y = layout.laneY(lane);
            if (!Double.isNaN(y)) {
                text(g, model.nodes().get(lane).value(), 6, y, Palette.FONT, Palette.TEXT, TextAlignment.LEFT);
            }
        }
    }

    // ---- violation stripe ----

    private static void stripe(GraphicsContext g, GraphLayout layout, GraphFrame frame, int from, int to) {
        List<String> predicates = frame.predicates();
        if (predicates.isEmpty()) {
            return;
        }
        for (int row = 0; row < predicates.size(); row++) {
            double top = layout.stripeRowTop(row);
            g.setFill(Palette.STRIPE_BACKGROUND);
            g.fillRect(layout.graphLeft(), top + 1, layout.graphWidth(), GraphLayout.STRIPE_ROW_HEIGHT - 2);
            text(g, predicates.get(row), 6, top + GraphLayout.STRIPE_ROW_HEIGHT / 2, Palette.SMALL_FONT, Palette.TEXT,
                    TextAlignment.LEFT);
        }
        g.save();
        clipToGraph(g, layout);
        // Light ones first, so that dark ones are never hidden under them.
        for (boolean darkPass : new boolean[] {false, true}) {
            for (Violation violation : frame.violations()) {
                boolean dark = frame.dark().test(violation);
                if (dark != darkPass) {
                    continue;
                }
                long[] span = stripeSpan(violation, frame.model().size());
                if (span[1] < from || span[0] > to) {
                    continue;
                }
                int row = predicates.indexOf(violation.predicate());
                double[] box = stripeBox(layout, violation, frame.model().size(), row);
                g.setFill(Palette.violation(violation, dark));
                g.fillRect(box[0], box[1], box[2], box[3]);
            }
        }
        g.restore();
    }

    /** The positions a violation covers in the stripe: one event, or a span (open spans run to the end). */
    static long[] stripeSpan(Violation violation, int size) {
        long start = violation.event().position();
        if (violation.kind() == Violation.Kind.EVENTUALLY && violation.status() == Violation.Status.VIOLATED) {
            return new long[] {start, violation.endPosition().orElse((long) size - 1)};
        }
        return new long[] {start, start};
    }

    /** The rectangle (x, y, width, height) of a violation in stripe row {@code row}. */
    static double[] stripeBox(GraphLayout layout, Violation violation, int size, int row) {
        long[] span = stripeSpan(violation, size);
        double top = layout.stripeRowTop(row) + 2;
        double height = GraphLayout.STRIPE_ROW_HEIGHT - 4;
        if (span[0] == span[1] && violation.kind() == Violation.Kind.ALWAYS) {
            double width = Math.max(3, Math.min(8, layout.pixelsPerEvent * 0.6));
            return new double[] {layout.x(span[0]) - width / 2, top, width, height};
        }
        double left = layout.x(span[0]) - layout.pixelsPerEvent / 2;
        double right = layout.x(span[1]) + layout.pixelsPerEvent / 2;
        return new double[] {left, top, Math.max(3, right - left), height};
    }

    // ---- legend ----

    private static List<LegendItem> legend(GraphFrame frame, int from, int to) {
        TraceModel model = frame.model();
        boolean[] typeSeen = new boolean[model.messageTypes().size()];
        boolean timer = false;
        boolean crash = false;
        boolean outside = false;
        boolean hidden = false;
        int last = Math.min(to, model.size() - 1);
        for (int position = Math.max(0, from); position <= last; position++) {
            if (!frame.isShown(position) || frame.rowOfLane()[model.laneOf(position)] < 0) {
                continue;
            }
            int type = model.messageType(position);
            if (type >= 0) {
                typeSeen[type] = true;
                outside |= model.peerLane(position) < 0;
            }
            timer |= model.type(position) == EventKind.TIMER;
            crash |= model.type(position) == EventKind.CRASH;
            int other = model.counterpart(position);
            hidden |= other >= 0 && onHiddenLane(frame, other);
        }
        boolean lost = false;
        for (int position = Math.max(0, from); position <= last && !lost; position++) {
            lost = model.type(position) == EventKind.SEND && model.counterpart(position) < 0
                    && model.peerLane(position) >= 0 && frame.isShown(position);
        }
        List<LegendItem> items = new ArrayList<>();
        for (int type = 0; type < typeSeen.length; type++) {
            if (typeSeen[type]) {
                items.add(new LegendItem(Symbol.MESSAGE, ColumnarTraceModel.simpleName(model.messageTypes().get(type)),
                        Palette.message(type)));
            }
        }
        if (timer) {
            items.add(new LegendItem(Symbol.TIMER, "timer", Palette.TIMER));
        }
        if (lost) {
            items.add(new LegendItem(Symbol.LOST, "never received", Palette.LANE));
        }
        if (outside) {
            items.add(new LegendItem(Symbol.OUTSIDE, "unrecorded node", Palette.OUTSIDE));
        }
        if (hidden) {
            items.add(new LegendItem(Symbol.HIDDEN, "to/from a hidden node", Palette.FAINT_TEXT));
        }
        if (crash) {
            items.add(new LegendItem(Symbol.CRASH, "crash / restart", Palette.CRASH));
        }
        int selected = frame.selected();
        if (selected >= 0 && selected >= from && selected <= last && model.counterpart(selected) >= 0) {
            items.add(new LegendItem(Symbol.SELECTED, "selected message", Palette.SELECTED_MESSAGE));
        }
        if (frame.faded() != null) {
            items.add(new LegendItem(Symbol.FADED, "common prefix of both runs", Palette.START));
        }
        if (frame.cone() != null) {
            items.add(new LegendItem(Symbol.BAND, "causes", Palette.CAUSES));
            items.add(new LegendItem(Symbol.BAND, "effects", Palette.EFFECTS));
        }
        if (!frame.violations().isEmpty()) {
            items.add(new LegendItem(Symbol.VIOLATION, "violation", Palette.VIOLATION_RING));
            boolean anyLight = frame.violations().stream().anyMatch(v -> !frame.dark().test(v));
            if (anyLight) {
                items.add(new LegendItem(Symbol.DARK, "counted", Palette.VIOLATION_DARK));
                items.add(new LegendItem(Symbol.LIGHT, "closed span or below threshold", Palette.VIOLATION_LIGHT));
            }
        }
        return items;
    }

    private static final double SWATCH_WIDTH = 22;
    private static final double ITEM_GAP = 16;

    private static double itemWidth(LegendItem item) {
        return SWATCH_WIDTH + 4 + textWidth(item.text(), Palette.SMALL_FONT) + ITEM_GAP;
    }

    private static int legendLines(List<LegendItem> items, double width) {
        if (items.isEmpty()) {
            return 0;
        }
        int lines = 1;
        double x = 6;
        for (LegendItem item : items) {
            double w = itemWidth(item);
            if (x + w > width && x > 6) {
                lines++;
                x = 6;
            }
            x += w;
        }
        return lines;
    }

    private static void legendPaint(GraphicsContext g, GraphLayout layout, List<LegendItem> items) {
        double x = 6;
        double y = layout.legendTop + GraphLayout.LEGEND_LINE_HEIGHT / 2;
        for (LegendItem item : items) {
            double w = itemWidth(item);
            if (x + w > layout.width && x > 6) {
                x = 6;
                y += GraphLayout.LEGEND_LINE_HEIGHT;
            }
            swatch(g, item, x, y);
            text(g, item.text(), x + SWATCH_WIDTH + 4, y, Palette.SMALL_FONT, Palette.TEXT, TextAlignment.LEFT);
            x += w;
        }
    }

    private static void swatch(GraphicsContext g, LegendItem item, double x, double y) {
        g.setStroke(item.color());
        g.setFill(item.color());
        g.setLineWidth(1.3);
        switch (item.symbol()) {
            case MESSAGE -> {
                g.strokeLine(x, y, x + SWATCH_WIDTH - 4, y);
                PathBatches head = new PathBatches();
                arrowHead(head.fill(item.color(), 1), x, y, x + SWATCH_WIDTH - 2, y, 5);
                head.draw(g);
            }
            case TIMER -> {
                double cx = x + SWATCH_WIDTH / 2;
                g.strokeOval(cx - 3, y - 1, 6, 6);
                g.beginPath();
                g.moveTo(cx - 1, y - 1);
                g.bezierCurveTo(cx - 8, y - 9, cx + 8, y - 9, cx + 1, y - 1);
                g.stroke();
            }
            case LOST -> {
                g.setLineDashes(3, 2);
                g.strokeLine(x, y + 3, x + SWATCH_WIDTH - 6, y - 2);
                g.setLineDashes();
                cross(g, x + SWATCH_WIDTH - 4, y - 3, 2.5);
            }
            case OUTSIDE -> {
                g.setLineDashes(1.5, 1.5);
                g.strokeLine(x + 4, y - 5, x + SWATCH_WIDTH - 4, y + 4);
                g.setLineDashes();
            }
            case HIDDEN -> {
                g.strokeLine(x + 2, y + 3, x + 10, y - 3);
                text(g, "n", x + 12, y - 3, Palette.SMALL_FONT, Palette.FAINT_TEXT, TextAlignment.LEFT);
            }
            case SELECTED -> {
                g.setLineWidth(5);
                g.strokeLine(x, y, x + SWATCH_WIDTH - 2, y);
                g.setStroke(Palette.TEXT);
                g.setLineWidth(1.5);
                g.strokeLine(x, y, x + SWATCH_WIDTH - 2, y);
            }
            case BAND -> g.fillRect(x, y - 5, SWATCH_WIDTH, 10);
            case FADED -> {
                g.setGlobalAlpha(GraphFrame.FADED_ALPHA);
                g.fillRect(x + SWATCH_WIDTH / 2 - 4, y - 4, 8, 8);
                g.setGlobalAlpha(1);
            }
            case CRASH -> {
                g.setLineWidth(2);
                cross(g, x + SWATCH_WIDTH / 2, y, 4);
            }
            case VIOLATION -> {
                g.setLineWidth(2);
                g.strokeOval(x + SWATCH_WIDTH / 2 - 6, y - 6, 12, 12);
            }
            case DARK, LIGHT -> g.fillRect(x + 2, y - 5, SWATCH_WIDTH - 4, 10);
        }
    }

    // ---- primitives ----

    /** A cross in the current stroke. */
    private static void cross(GraphicsContext g, double x, double y, double size) {
        g.strokeLine(x - size, y - size, x + size, y + size);
        g.strokeLine(x - size, y + size, x + size, y - size);
    }

    private static void cross(PathBatches.Path path, double x, double y, double size) {
        path.line(x - size, y - size, x + size, y + size);
        path.line(x - size, y + size, x + size, y - size);
    }

    private static void text(GraphicsContext g, String text, double x, double y, Font font, Color color,
                             TextAlignment alignment) {
        g.setFont(font);
        g.setFill(color);
        g.setTextAlign(alignment);
        g.setTextBaseline(VPos.CENTER);
        g.fillText(text, x, y);
    }
}
