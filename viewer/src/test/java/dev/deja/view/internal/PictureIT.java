package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckedEvent;
import dev.deja.check.Violation;
import dev.deja.trace.EventKind;
import dev.deja.view.PictureSettings;
import dev.deja.view.Segment;
import dev.deja.view.TraceModel;
import dev.deja.view.Viewer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javafx.scene.paint.Color;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pictures of a real (simulated) three-node Paxos run with a crash, checked where the layout puts things. */
class PictureIT {
    private static final int NODES = 3;
    private static final long SEED = 4;

    @TempDir
    static Path temporary;
    private static TraceModel model;

    @BeforeAll
    static void simulate() {
        model = TraceModel.open(SimulatedRuns.paxos(temporary.resolve("paxos"), NODES, SEED));
        System.out.printf("PictureIT: %d entries, %d arcs; the trace is made by: %s%n", model.size(), model.arcCount(),
                SimulatedRuns.command(NODES, SEED));
    }

    private static double distance(int argb, Color color) {
        double r = ((argb >> 16) & 0xFF) - color.getRed() * 255;
        double g = ((argb >> 8) & 0xFF) - color.getGreen() * 255;
        double b = (argb & 0xFF) - color.getBlue() * 255;
        return Math.sqrt(r * r + g * g + b * b);
    }

    private static double nearest(PictureRenderer.Picture picture, double x, double y, int radius, Color color) {
        double best = Double.MAX_VALUE;
        for (int dx = -radius; dx <= radius; dx++) {
            for (int dy = -radius; dy <= radius; dy++) {
                best = Math.min(best, distance(picture.pixel(x + dx, y + dy), color));
            }
        }
        return best;
    }

    /** The share of pixel columns from {@code x1} to {@code x2} whose pixel at {@code y} has the lane's colour. */
    private static double laneShare(PictureRenderer.Picture picture, double y, double x1, double x2) {
        int lane = 0;
        int all = 0;
        for (double x = x1; x <= x2; x++) {
            all++;
            if (distance(picture.pixel(x, y), Palette.LANE) < 60) {
                lane++;
            }
        }
        return all == 0 ? 0 : (double) lane / all;
    }

    private static Violation violationAt(int position) {
        CheckedEvent event = new CheckedEvent(position, model.nodes().get(model.laneOf(position)), model.incarnation(position),
                model.seq(position), model.lamport(position), model.atMillis(position), model.type(position).traceName(),
                Optional.empty(), Optional.empty());
        return new Violation("agreement", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event, Optional.empty(),
                Map.of(), "");
    }

    private static int firstReceiveFromAnotherNode() {
        for (int position = 0; position < model.size(); position++) {
            if (model.type(position) == EventKind.RECEIVE && model.counterpart(position) >= 0
                    && model.laneOf(model.counterpart(position)) != model.laneOf(position)) {
                return position;
            }
        }
        throw new AssertionError("the run has no message between two nodes");
    }

    @Test
    void render_ofThePaxosRun_matchesTheGoldenImage() throws Exception {
        int receive = firstReceiveFromAnotherNode();
        PictureSettings settings = PictureSettings.builder(model.size()).widthPixels(1400)
                .violations(List.of(violationAt(receive))).build();
        Path file = temporary.resolve("paxos.png");
        Viewer.writePng(model, settings, file);
        Golden.assertPng("paxos-3-seed-4.png", Files.readAllBytes(file));
    }

    @Test
    void render_putsTheLanesOnTheirRows_andSplitsTheCrashedNodesLane() {
        PictureRenderer.Picture picture = PictureRenderer.render(model, PictureSettings.builder(model.size())
                .widthPixels(1400).build());
        GraphLayout layout = picture.layout();
        int crashedLanes = 0;
        for (int lane = 0; lane < NODES; lane++) {
            double y = layout.laneY(lane);
            assertThat(y).isEqualTo(Math.floor(layout.lanesTop + (lane + 0.5) * GraphLayout.LANE_HEIGHT) + 0.5);
            List<Segment> segments = model.segments(lane);
            for (int i = 0; i < segments.size(); i++) {
                Segment segment = segments.get(i);
                double first = layout.x(segment.firstPosition()) + 6;
                double last = layout.x(segment.lastPosition()) - 6;
                assertThat(laneShare(picture, y, first, last)).as("lane %d incarnation %d drawn", lane, segment.incarnation())
                        .isGreaterThan(0.5);
                if (i + 1 < segments.size()) {
                    crashedLanes++;
                    assertThat(segment.crashed()).isTrue();
                    // The crashed incarnation ends in a red cross just after its last entry.
                    double cross = layout.x(segment.lastPosition()) + Math.max(3, layout.pixelsPerEvent * 0.5) + 2;
                    assertThat(nearest(picture, cross, y, 2, Palette.CRASH)).as("cross on lane %d", lane).isLessThan(60);
                }
            }
        }
        assertThat(crashedLanes).as("seed %d crashes a node", SEED).isEqualTo(1);
    }

    @Test
    void render_drawsAMessagesArcBetweenItsSendAndItsReceive() {
        int receive = firstReceiveFromAnotherNode();
        int send = model.counterpart(receive);
        PictureRenderer.Picture picture = PictureRenderer.render(model, PictureSettings.builder(model.size())
                .range(Math.max(0, send - 5), receive + 5).widthPixels(800).build());
        GraphLayout layout = picture.layout();
        double x1 = layout.x(send);
        double y1 = layout.laneY(model.laneOf(send));
        double x2 = layout.x(receive);
        double y2 = layout.laneY(model.laneOf(receive));
        Color color = Palette.message(model.messageType(receive));
        for (double t : new double[] {0.25, 0.5, 0.75}) {
            assertThat(nearest(picture, x1 + (x2 - x1) * t, y1 + (y2 - y1) * t, 1, color))
                    .as("arc from %d to %d at %.0f%%", send, receive, t * 100).isLessThan(40);
        }
    }

    @Test
    void render_withAViolation_marksItAtItsPositionInTheStripe() {
        int receive = firstReceiveFromAnotherNode();
        PictureRenderer.Picture picture = PictureRenderer.render(model, PictureSettings.builder(model.size())
                .widthPixels(1400).violations(List.of(violationAt(receive))).build());
        GraphLayout layout = picture.layout();
        double y = layout.stripeRowTop(0) + GraphLayout.STRIPE_ROW_HEIGHT / 2;
        double x = layout.x(receive);
        assertThat(distance(picture.pixel(x, y), Palette.VIOLATION_DARK)).isLessThan(5);
        assertThat(distance(picture.pixel(x - 6, y), Palette.STRIPE_BACKGROUND)).isLessThan(5);
        assertThat(distance(picture.pixel(x + 6, y), Palette.STRIPE_BACKGROUND)).isLessThan(5);
    }
}
