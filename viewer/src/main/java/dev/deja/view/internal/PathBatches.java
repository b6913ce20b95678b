package dev.deja.view.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;

/**
 * Collects shapes of the same style into one path each and draws every path with a single stroke or fill.
 * The software rasterizer pays a set-up cost per shape over the shape's bounds, so thousands of separate
 * lines across a wide picture cost far more than one path holding them all. Not thread-safe.
 */
final class PathBatches {
    /** How a path is drawn. */
    enum Paint { STROKE, FILL }

    /** One style: what paints, in which colour, how strongly, how wide, dashed or not. */
    private record Style(Paint paint, Color color, double alpha, double lineWidth, boolean dashed) {
    }

    private static final byte MOVE = 0;
    private static final byte LINE = 1;
    private static final byte QUAD = 2;
    private static final byte CUBIC = 3;
    private static final byte CLOSE = 4;
    private static final byte CIRCLE = 5;

    /** One path under construction. */
    static final class Path {
        private byte[] ops = new byte[64];
        private double[] coords = new double[256];
        private int opCount;
        private int coordCount;

        private void op(byte op, double... values) {
            if (opCount == ops.length) {
                ops = Arrays.copyOf(ops, ops.length * 2);
            }
            ops[opCount++] = op;
            if (coordCount + values.length > coords.length) {
                coords = Arrays.copyOf(coords, Math.max(coords.length * 2, coordCount + values.length));
            }
            System.arraycopy(values, 0, coords, coordCount, values.length);
            coordCount += values.length;
        }

        void line(double x1, double y1, double x2, double y2) {
            op(MOVE, x1, y1);
            op(LINE, x2, y2);
        }

        void quad(double x1, double y1, double cx, double cy, double x2, double y2) {
            op(MOVE, x1, y1);
            op(QUAD, cx, cy, x2, y2);
        }

        void cubic(double x1, double y1, double c1x, double c1y, double c2x, double c2y, double x2, double y2) {
            op(MOVE, x1, y1);
            op(CUBIC, c1x, c1y, c2x, c2y, x2, y2);
        }

        void circle(double cx, double cy, double r) {
            op(CIRCLE, cx, cy, r);
        }

        void rect(double x, double y, double w, double h) {
            op(MOVE, x, y);
            op(LINE, x + w, y);
            op(LINE, x + w, y + h);
            op(LINE, x, y + h);
            op(CLOSE);
        }

        void triangle(double x1, double y1, double x2, double y2, double x3, double y3) {
            op(MOVE, x1, y1);
            op(LINE, x2, y2);
            op(LINE, x3, y3);
            op(CLOSE);
        }

        private void replay(GraphicsContext g) {
            g.beginPath();
            int c = 0;
            for (int i = 0; i < opCount; i++) {
                switch (ops[i]) {
                    case MOVE -> g.moveTo(coords[c++], coords[c++]);
                    case LINE -> g.lineTo(coords[c++], coords[c++]);
                    case QUAD -> g.quadraticCurveTo(coords[c++], coords[c++], coords[c++], coords[c++]);
                    case CUBIC -> g.bezierCurveTo(coords[c++], coords[c++], coords[c++], coords[c++], coords[c++], coords[c++]);
                    case CLOSE -> g.closePath();
                    case CIRCLE -> {
                        double x = coords[c++];
                        double y = coords[c++];
                        double r = coords[c++];
                        g.moveTo(x + r, y);
                        g.arc(x, y, r, r, 0, 360);
                        g.closePath();
                    }
                    default -> throw new IllegalStateException("unknown path op " + ops[i]);
                }
            }
        }
    }

    private final Map<Style, Path> paths = new LinkedHashMap<>();

    /** The path for shapes stroked in this style. */
    Path stroke(Color color, double alpha, double lineWidth, boolean dashed) {
        return paths.computeIfAbsent(new Style(Paint.STROKE, color, alpha, lineWidth, dashed), s -> new Path());
    }

    /** The path for shapes filled in this style. */
    Path fill(Color color, double alpha) {
        return paths.computeIfAbsent(new Style(Paint.FILL, color, alpha, 0, false), s -> new Path());
    }

    /** Draws every path in the order its style was first used, then forgets them. */
    void draw(GraphicsContext g) {
        for (Map.Entry<Style, Path> entry : paths.entrySet()) {
            Style style = entry.getKey();
            g.setGlobalAlpha(style.alpha());
            entry.getValue().replay(g);
            if (style.paint() == Paint.STROKE) {
                g.setStroke(style.color());
                g.setLineWidth(style.lineWidth());
                if (style.dashed()) {
                    g.setLineDashes(3, 2);
                }
                g.stroke();
                g.setLineDashes();
            } else {
                g.setFill(style.color());
                g.fill();
            }
        }
        g.setGlobalAlpha(1);
        paths.clear();
    }
}
