package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckedEvent;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import dev.deja.view.EventFilter;
import dev.deja.view.PictureSettings;
import dev.deja.check.Threshold;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.scene.paint.Color;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Pictures of a small crafted trace, checked pixel by pixel where the layout says things are. */
class GraphPainterTest {
    private ColumnarTraceModel model;

    /** The crafted trace of {@link TraceModelTest}: a delivery, a loss, a self message, a client, a duplicate, a crash. */
    @BeforeEach
    void craft() {
        CraftedTrace crafted = new CraftedTrace("n1", "n2", "n3");
        crafted.start("n1").start("n2").start("n3");
        CraftedTrace.Sent a = crafted.send("n1", "n2", "a");
        crafted.receive(a);
        crafted.send("n2", "n3", "b-lost");
        CraftedTrace.Sent self = crafted.send("n2", "n2", "self");
        crafted.receive(self);
        crafted.timer("n3", 7, "tick");
        crafted.receiveFromOutside("client", "n1", 1, "query");
        CraftedTrace.Sent dup = crafted.send("n1", "n3", "dup");
        crafted.receive(dup).receive(dup);
        crafted.crashAndRestart("n3");
        model = crafted.model();
    }

    private int at(String node, int seq) {
        return model.positionOf(model.lane(new NodeId(node)), seq);
    }

    private PictureRenderer.Picture render(PictureSettings settings) {
        return PictureRenderer.render(model, settings);
    }

    private static Violation violation(ColumnarTraceModel model, String predicate, Violation.Kind kind, int position,
                                       Optional<Long> end, Map<String, Object> aux) {
        CheckedEvent event = new CheckedEvent(position, model.nodes().get(model.laneOf(position)),
                model.incarnation(position), model.seq(position), model.lamport(position), model.atMillis(position),
                model.type(position).traceName(), Optional.empty(), Optional.empty());
        return new Violation(predicate, kind, Violation.Status.VIOLATED, event, end, aux, "");
    }

    /** The distance between two colours in RGB, 0..441. */
    private static double distance(int argb, Color color) {
        double r = ((argb >> 16) & 0xFF) - color.getRed() * 255;
        double g = ((argb >> 8) & 0xFF) - color.getGreen() * 255;
        double b = (argb & 0xFF) - color.getBlue() * 255;
        return Math.sqrt(r * r + g * g + b * b);
    }

    /** The closest any pixel within {@code radius} of (x, y) comes to {@code color}. */
    private static double nearest(PictureRenderer.Picture picture, double x, double y, int radius, Color color) {
        double best = Double.MAX_VALUE;
        for (int dx = -radius; dx <= radius; dx++) {
            for (int dy = -radius; dy <= radius; dy++) {
                best = Math.min(best, distance(picture.pixel(x + dx, y + dy), color));
            }
        }
        return best;
    }

    @Test
    void render_putsEachLaneOnItsRow_withWhiteBetweenRows() {
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        GraphLayout layout = picture.layout();
        for (int lane = 0; lane < 3; lane++) {
            double y = layout.laneY(lane);
            assertThat(y).isEqualTo(layout.lanesTop + lane * GraphLayout.LANE_HEIGHT + GraphLayout.LANE_HEIGHT / 2 + 0.5);
            // Between the lane's first two events its line is drawn, and nothing else is there.
            int first = model.positionOf(lane, 0);
            int second = model.positionOf(lane, 1);
            double x = (layout.x(first) + layout.x(second)) / 2;
            if (lane == 2) {
                x = layout.x(first) + 6; // n3's first neighbours are a timer loop; stay left of it
            }
            assertThat(nearest(picture, x, y, 0, Palette.LANE)).as("lane %d line at y %s", lane, y).isLessThan(60);
            assertThat(picture.pixel(layout.graphLeft() - 4, y + GraphLayout.LANE_HEIGHT / 2))
                    .as("margin between rows").isEqualTo(0xFFFFFFFF);
        }
    }

    @Test
    void render_drawsADeliveredMessage_asALineOfItsTypesColourBetweenItsEnds() {
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        GraphLayout layout = picture.layout();
        int send = at("n1", 1);
        int receive = at("n2", 1);
        double x1 = layout.x(send);
        double y1 = layout.laneY(model.laneOf(send));
        double x2 = layout.x(receive);
        double y2 = layout.laneY(model.laneOf(receive));
        Color color = Palette.message(model.messageType(send));
        for (double t : new double[] {0.3, 0.5, 0.7}) {
            double x = x1 + (x2 - x1) * t;
            double y = y1 + (y2 - y1) * t;
            assertThat(nearest(picture, x, y, 1, color)).as("arc pixel at %.0f%% of the way", t * 100).isLessThan(40);
        }
        // Off the line, halfway between the lanes but left of the send, there is only background.
        assertThat(picture.pixel(x1 - 6, (y1 + y2) / 2)).isEqualTo(0xFFFFFFFF);
        // The receive's mark is a dot of the same colour on n2's lane.
        assertThat(distance(picture.pixel(x2, y2), color)).isLessThan(10);
    }

    @Test
    void render_drawsALostMessage_asADashedArcToTheLaneItWasSentTo_endingInACross() {
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        GraphLayout layout = picture.layout();
        int lost = at("n2", 2);
        double x = layout.x(lost);
        double y = layout.laneY(model.laneOf(lost));
        Color color = Palette.message(model.messageType(lost));
        double reach = Math.max(8, Math.min(40, layout.pixelsPerEvent * 3));
        double laneN3 = layout.laneY(model.lane(new NodeId("n3")));
        assertThat(nearest(picture, x + reach * 0.25, y + (laneN3 - y) * 0.25, 2, color)).as("the dashed arc")
                .isLessThan(60);
        // The cross is on n3's lane, where the message was going, not somewhere between the lanes.
        assertThat(nearest(picture, x + reach + 2, laneN3 + 2, 1, color)).as("the cross on n3's lane").isLessThan(60);
        assertThat(nearest(picture, x + reach + 2, laneN3 - 2, 1, color)).as("the cross on n3's lane").isLessThan(60);
    }

    @Test
    void render_withTheReceiversLaneHidden_endsTheArcInAStubLabelledWithTheReceiver() {
        EventFilter filter = EventFilter.builder().node(new NodeId("n1")).node(new NodeId("n2")).build();
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600).filter(filter).build());
        GraphLayout layout = picture.layout();
        int send = at("n1", 3); // dup, sent to n3
        double x = layout.x(send);
        double y = layout.laneY(model.laneOf(send));
        Color color = Palette.message(model.messageType(send));
        double dy = layout.laneHeight * 0.38; // n3 lies below n1
        assertThat(nearest(picture, x + 5, y + dy / 2, 2, color)).as("the stub from the send").isLessThan(60);
        double text = Double.MAX_VALUE;
        for (int dx = 10; dx <= 24; dx++) {
            text = Math.min(text, nearest(picture, x + dx, y + dy + 4, 4, Palette.FAINT_TEXT));
        }
        assertThat(text).as("the label n3 at the stub's end").isLessThan(60);
        // Without the filter the same send has a full arc and no label there.
        PictureRenderer.Picture all = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        assertThat(all.layout().laneY(model.lane(new NodeId("n3")))).isNotNaN();
    }

    @Test
    void render_withACone_shadesCausesAndEffectsInTwoTones() {
        int receive = at("n3", 2);
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600)
                .selected(receive, PictureSettings.Highlight.CONE).build());
        GraphLayout layout = picture.layout();
        int lane1 = model.lane(new NodeId("n1"));
        double pastX = (layout.x(model.positionOf(lane1, 0)) + layout.x(model.positionOf(lane1, 1))) / 2;
        assertThat(distance(picture.pixel(pastX, layout.laneY(lane1) - 6), Palette.CAUSES)).as("a cause on n1")
                .isLessThan(5);
        int lane3 = model.lane(new NodeId("n3"));
        int after = model.positionOf(lane3, 3);
        double futureX = layout.x(after) + 3;
        assertThat(distance(picture.pixel(futureX, layout.laneY(lane3) - 7), Palette.EFFECTS)).as("an effect on n3")
                .isLessThan(5);
        // Without the cone, the same pixels are background.
        PictureRenderer.Picture plain = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        assertThat(plain.pixel(pastX, layout.laneY(lane1) - 6)).isEqualTo(0xFFFFFFFF);
    }

    @Test
    void render_withASelectedReceive_highlightsItsMessageEndToEnd() {
        int receive = at("n2", 1); // a, from n1
        int send = model.counterpart(receive);
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600)
                .selected(receive, PictureSettings.Highlight.MARK).build());
        GraphLayout layout = picture.layout();
        double x1 = layout.x(send);
        double y1 = layout.laneY(model.laneOf(send));
        double x2 = layout.x(receive);
        double y2 = layout.laneY(model.laneOf(receive));
        double length = Math.hypot(x2 - x1, y2 - y1);
        double nx = -(y2 - y1) / length;
        double ny = (x2 - x1) / length;
        for (double t : new double[] {0.25, 0.5, 0.75}) {
            double x = x1 + (x2 - x1) * t + nx * 2;
            double y = y1 + (y2 - y1) * t + ny * 2;
            assertThat(nearest(picture, x, y, 0, Palette.SELECTED_MESSAGE)).as("the highlight at %.0f%%", t * 100)
                    .isLessThan(40);
        }
        PictureRenderer.Picture plain = render(PictureSettings.builder(model.size()).widthPixels(600).build());
        double x = (x1 + x2) / 2 + nx * 2;
        double y = (y1 + y2) / 2 + ny * 2;
        assertThat(nearest(plain, x, y, 0, Palette.SELECTED_MESSAGE)).as("no highlight unselected").isGreaterThan(100);
    }

    @Test
    void render_withAViolation_marksItInTheStripeAtItsPositionsX() {
        int position = at("n2", 4);
        Violation always = violation(model, "safe", Violation.Kind.ALWAYS, position, Optional.empty(), Map.of());
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600)
                .violations(List.of(always)).build());
        GraphLayout layout = picture.layout();
        double y = layout.stripeRowTop(0) + GraphLayout.STRIPE_ROW_HEIGHT / 2;
        assertThat(distance(picture.pixel(layout.x(position), y), Palette.VIOLATION_DARK)).isLessThan(5);
        assertThat(distance(picture.pixel(layout.x(position + 2), y), Palette.STRIPE_BACKGROUND)).isLessThan(5);
        // The event itself gets a red ring on its lane.
        double laneY = layout.laneY(model.laneOf(position));
        assertThat(nearest(picture, layout.x(position) + 5.5 + 0.5, laneY, 1, Palette.VIOLATION_RING)).isLessThan(40);
    }

    @Test
    void render_withAThreshold_drawsPassingViolationsDarkAndTheRestLight() {
        int low = at("n1", 1);
        int high = at("n3", 3);
        Violation below = violation(model, "stuck", Violation.Kind.ALWAYS, low, Optional.empty(), Map.of("enough_time", 2L));
        Violation above = violation(model, "stuck", Violation.Kind.ALWAYS, high, Optional.empty(), Map.of("enough_time", 9L));
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600)
                .violations(List.of(below, above)).threshold(Threshold.parse("enough_time=5")).build());
        GraphLayout layout = picture.layout();
        double y = layout.stripeRowTop(0) + GraphLayout.STRIPE_ROW_HEIGHT / 2;
        assertThat(distance(picture.pixel(layout.x(low), y), Palette.VIOLATION_LIGHT)).isLessThan(5);
        assertThat(distance(picture.pixel(layout.x(high), y), Palette.VIOLATION_DARK)).isLessThan(5);
    }

    @Test
    void render_ofAnEventuallySpan_drawsABarFromItsStartToItsEnd() {
        int start = at("n1", 1);
        int end = at("n3", 3);
        Violation span = violation(model, "live", Violation.Kind.EVENTUALLY, start, Optional.of((long) end), Map.of());
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600)
                .violations(List.of(span)).build());
        GraphLayout layout = picture.layout();
        double y = layout.stripeRowTop(0) + GraphLayout.STRIPE_ROW_HEIGHT / 2;
        // A closed span is not counted as a violation (the property held again): its bar is light.
        for (int position = start; position <= end; position++) {
            assertThat(distance(picture.pixel(layout.x(position), y), Palette.VIOLATION_LIGHT)).as("bar at %d", position)
                    .isLessThan(5);
        }
        assertThat(distance(picture.pixel(layout.x(end + 1), y), Palette.STRIPE_BACKGROUND)).isLessThan(5);
    }

    @Test
    void render_filteredToTwoNodes_drawsOnlyTheirLanes() {
        EventFilter filter = EventFilter.builder().node(new NodeId("n1")).node(new NodeId("n3")).build();
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(600).filter(filter).build());
        GraphLayout layout = picture.layout();
        assertThat(layout.rows).isEqualTo(2);
        assertThat(layout.laneY(model.lane(new NodeId("n2")))).isNaN();
        assertThat(layout.laneY(model.lane(new NodeId("n3")))).isEqualTo(layout.lanesTop + GraphLayout.LANE_HEIGHT * 1.5 + 0.5);
    }

    @Test
    void render_ofAWindow_startsTheAxisAtItsFirstPosition() {
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).range(4, 9).widthPixels(500).build());
        GraphLayout layout = picture.layout();
        assertThat(layout.positionAt(layout.graphLeft() + 1)).isEqualTo(4);
        assertThat(layout.positionAt(layout.graphLeft() + layout.graphWidth() - 1)).isEqualTo(9);
    }

    @Test
    void render_ofTheCraftedTrace_matchesTheGoldenImage() throws Exception {
        int receive = at("n3", 2);
        Violation always = violation(model, "safe", Violation.Kind.ALWAYS, receive, Optional.empty(), Map.of());
        PictureRenderer.Picture picture = render(PictureSettings.builder(model.size()).widthPixels(520)
                .violations(List.of(always)).selected(receive, PictureSettings.Highlight.CONE).build());
        byte[] png = PictureRenderer.png(picture);
        assertThat(PictureRenderer.png(render(PictureSettings.builder(model.size()).widthPixels(520)
                .violations(List.of(always)).selected(receive, PictureSettings.Highlight.CONE).build())))
                .as("the same picture twice gives the same bytes").isEqualTo(png);
        Golden.assertPng("crafted.png", png);
    }
}
