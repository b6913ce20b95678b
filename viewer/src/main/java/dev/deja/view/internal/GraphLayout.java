package dev.deja.view.internal;

/**
 * Where things go in a picture of the graph: lanes as horizontal rows, positions along x, the violation stripe
 * and the legend below. Pure geometry, no drawing; tests use it to find the pixels they check. Immutable.
 *
 * <pre>
 *   title (pictures only)
 *   axis with position ticks
 *   lane rows, one per shown node, LANE_HEIGHT apart
 *   violation stripe: one row per predicate
 *   legend lines
 * </pre>
 */
final class GraphLayout {
    static final double TITLE_HEIGHT = 20;
    static final double AXIS_HEIGHT = 18;
    static final double LANE_HEIGHT = 32;
    static final double MIN_LANE_HEIGHT = 14;
    static final double STRIPE_GAP = 8;
    static final double STRIPE_ROW_HEIGHT = 14;
    static final double LEGEND_GAP = 8;
    static final double LEGEND_LINE_HEIGHT = 16;
    static final double RIGHT_PAD = 12;

    final double width;
    final double leftMargin;
    final double titleHeight;
    final double lanesTop;
    final double laneHeight;
    final int[] rowOfLane;
    final int rows;
    final double firstPosition;
    final double pixelsPerEvent;
    final double stripeTop;
    final int stripeRows;
    final double legendTop;
    final int legendLines;
    final double height;

    /**
     * @param width          the picture's width in pixels
     * @param leftMargin     room for the lane and predicate labels
     * @param withTitle      whether a title line comes first
     * @param rowOfLane      for each lane its row, or -1 when the lane is hidden
     * @param laneHeight     the distance between lane rows
     * @param firstPosition  the position at the left edge of the graph area (fractional when panned)
     * @param pixelsPerEvent the zoom
     * @param stripeRows     rows of the violation stripe (0: no stripe)
     * @param legendLines    lines of legend (0: no legend)
     */
    GraphLayout(double width, double leftMargin, boolean withTitle, int[] rowOfLane, double laneHeight,
                double firstPosition, double pixelsPerEvent, int stripeRows, int legendLines) {
        this.width = width;
        this.leftMargin = leftMargin;
        this.titleHeight = withTitle ? TITLE_HEIGHT : 0;
        this.rowOfLane = rowOfLane.clone();
        int shown = 0;
        for (int row : rowOfLane) {
            shown = Math.max(shown, row + 1);
        }
        this.rows = shown;
        this.laneHeight = laneHeight;
        this.lanesTop = titleHeight + AXIS_HEIGHT;
        this.firstPosition = firstPosition;
        this.pixelsPerEvent = pixelsPerEvent;
        this.stripeRows = stripeRows;
        this.stripeTop = lanesTop + rows * laneHeight + STRIPE_GAP;
        double stripeHeight = stripeRows == 0 ? 0 : stripeRows * STRIPE_ROW_HEIGHT;
        this.legendLines = legendLines;
        this.legendTop = stripeTop + stripeHeight + (legendLines == 0 ? 0 : LEGEND_GAP);
        this.height = Math.ceil(legendTop + legendLines * LEGEND_LINE_HEIGHT + 6);
    }

    /** The left edge of the graph area. */
    double graphLeft() {
        return leftMargin;
    }

    /** The width of the graph area. */
    double graphWidth() {
        return width - leftMargin - RIGHT_PAD;
    }

    /** The x of the centre of the column of {@code position}. */
    double x(double position) {
        return leftMargin + (position - firstPosition + 0.5) * pixelsPerEvent;
    }

    /** The position whose column holds {@code x}. */
    int positionAt(double x) {
        return (int) Math.floor((x - leftMargin) / pixelsPerEvent + firstPosition);
    }

    /** The first position with a column (partly) in the graph area. */
    int firstVisible() {
        return (int) Math.max(0, Math.floor(firstPosition));
    }

    /** The last position with a column (partly) in the graph area, not clipped to the trace. */
    int lastVisible() {
        return (int) Math.min(Integer.MAX_VALUE - 1L, (long) Math.ceil(firstPosition + graphWidth() / pixelsPerEvent));
    }

    /** The y of lane {@code lane}'s line (the middle of a pixel row, so lines are crisp), or NaN when hidden. */
    double laneY(int lane) {
        int row = rowOfLane[lane];
        return row < 0 ? Double.NaN : Math.floor(lanesTop + row * laneHeight + laneHeight / 2) + 0.5;
    }

    /** The top of stripe row {@code row}. */
    double stripeRowTop(int row) {
        return stripeTop + row * STRIPE_ROW_HEIGHT;
    }

    /** The stripe row at {@code y}, or -1. */
    int stripeRowAt(double y) {
        if (stripeRows == 0 || y < stripeTop) {
            return -1;
        }
        int row = (int) ((y - stripeTop) / STRIPE_ROW_HEIGHT);
        return row < stripeRows ? row : -1;
    }

    /** The lane whose row holds {@code y}, or -1. */
    int laneAt(double y) {
        if (y < lanesTop) {
            return -1;
        }
        int row = (int) ((y - lanesTop) / laneHeight);
        for (int lane = 0; lane < rowOfLane.length; lane++) {
            if (rowOfLane[lane] == row) {
                return lane;
            }
        }
        return -1;
    }
}
