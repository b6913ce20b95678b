package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.Violation;
import dev.deja.check.store.H2StateHistory;
import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.NodeId;
import dev.deja.replay.Replayer;
import dev.deja.trace.EventKind;
import dev.deja.trace.Trace;
import dev.deja.view.EventFilter;
import dev.deja.view.TraceModel;
import dev.deja.view.WindowSettings;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javafx.geometry.Bounds;
import javafx.geometry.Point2D;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Drives the viewer window on JavaFX's headless platform with TestFX's robot (clicks on its buttons and its
 * graph), on a simulated Paxos run; the node state it shows is compared with the replayed nodes' own fields,
 * read independently with a replay listener.
 */
class ViewerWindowIT {
    private static final int NODES = 3;
    private static final long SEED = 4;

    @TempDir
    static Path temporary;
    private static Path trace;
    private static TraceModel model;
    /** Every node's accepted round after every handler call, read from the replayed nodes. */
    private static final Map<Integer, Long> acceptedRoundAfter = new HashMap<>();

    private final FxRobot robot = new FxRobot();
    private ViewerWindow window;

    @BeforeAll
    static void simulate() throws Exception {
        trace = SimulatedRuns.paxos(temporary.resolve("paxos"), NODES, SEED);
        model = TraceModel.open(trace);
        Field acceptedRound = PaxosNode.class.getDeclaredField("acceptedRound");
        acceptedRound.setAccessible(true);
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (event.startedHandler()) {
                state.node(event.entry().node()).ifPresent(node -> {
                    try {
                        acceptedRoundAfter.put((int) position, acceptedRound.getLong(node));
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }));
        FxToolkit.start(FxToolkit.Mode.HEADLESS);
        System.out.printf("ViewerWindowIT: %d entries; the trace is made by: %s%n", model.size(),
                SimulatedRuns.command(NODES, SEED));
    }

    @AfterEach
    void close() {
        if (window != null) {
            FxToolkit.call(() -> {
                window.stage().close();
                return null;
            });
        }
    }

    private ViewerWindow open(OptionalInt at, List<Violation> violations) {
        WindowSettings settings = new WindowSettings(trace, violations, List.of(), at, EventFilter.ALL,
                ViewerWindowIT.class.getClassLoader());
        window = FxToolkit.call(() -> ViewerWindow.show(model, settings));
        return window;
    }

    /** The first receive of a Begin that raised the receiver's accepted round. */
    private static int acceptingBegin() {
        for (int position = 0; position < model.size(); position++) {
            if (model.type(position) == EventKind.RECEIVE && model.content(position).contains("\"round\"")
                    && model.entry(position).toString().contains("Begin")) {
                int previous = model.previousOnLane(position);
                while (previous >= 0 && !acceptedRoundAfter.containsKey(previous)) {
                    previous = model.previousOnLane(previous);
                }
                if (previous >= 0 && acceptedRoundAfter.get(position) > acceptedRoundAfter.get(previous)) {
                    return position;
                }
            }
        }
        throw new AssertionError("no Begin raised an accepted round in " + SimulatedRuns.command(NODES, SEED));
    }

    private static <T> T on(Supplier<T> read) {
        return FxToolkit.call(read::get);
    }

    private static void waitFor(String what, Supplier<Boolean> condition) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> on(condition));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting for " + what);
        }
    }

    /**
     * The first node matching {@code query} once one is shown: a window that was just opened (the why panel) may
     * not be in the scene graph on the first pulse after its model is filled.
     */
    private javafx.scene.Node shown(String query, int index) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS,
                    () -> robot.lookup(query).queryAll().size() > index);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out waiting for a node matching " + query);
        }
        WaitForAsyncUtils.waitForFxEvents();
        return robot.lookup(query).nth(index).query();
    }

    /** Whether the state panel shows the state at exactly {@code position}. */
    private boolean showsStateAt(int position) {
        return window.stateStatusText().matches("\\S+ after position " + position + "\\b.*");
    }

    private List<String> stateLines() {
        return on(window::stateLines);
    }

    @Test
    void open_atABegin_showsTheReceiversReplayedStateWithTheAcceptedRoundChanged() throws Exception {
        int begin = acceptingBegin();
        int previousHandler = model.previousOnLane(begin);
        while (!acceptedRoundAfter.containsKey(previousHandler)) {
            previousHandler = model.previousOnLane(previousHandler);
        }
        open(OptionalInt.of(begin), List.of());
        waitFor("the state at " + begin, () -> showsStateAt(begin));
        assertThat(on(window::selected)).isEqualTo(begin);
        assertThat(on(window::eventHeaderText)).contains("position " + begin, "receive Begin from");
        assertThat(stateLines()).contains("  acceptedRound = " + acceptedRoundAfter.get(previousHandler) + " → "
                + acceptedRoundAfter.get(begin));
        assertThat(on(window::stateStatusText)).contains("changes since its handler call at position " + previousHandler);
    }

    @Test
    void previousNodeButton_stepsBackAlongTheNode_andShowsThatStateFromMemory() throws Exception {
        int begin = acceptingBegin();
        open(OptionalInt.of(begin), List.of());
        waitFor("the first state", () -> showsStateAt(begin));

        robot.clickOn("#previous-node");
        int previous = model.previousOnLane(begin);
        waitFor("the previous entry's state", () -> showsStateAt(previous));
        assertThat(on(window::selected)).isEqualTo(previous);
        assertThat(on(window::stateStatusText)).endsWith("from memory");
        int handler = previous;
        while (!acceptedRoundAfter.containsKey(handler)) {
            handler = model.previousOnLane(handler);
        }
        long round = acceptedRoundAfter.get(handler);
        assertThat(stateLines()).anySatisfy(line -> assertThat(line.strip())
                .matches("acceptedRound = (\\d+ → )?" + round));
    }

    @Test
    void acrossMessageButton_fromAReceive_selectsItsSend() throws Exception {
        int begin = acceptingBegin();
        open(OptionalInt.of(begin), List.of());
        robot.clickOn("#across-message");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(window::selected)).isEqualTo(model.counterpart(begin));
        assertThat(on(window::eventHeaderText)).contains("send Begin to " + model.nodes().get(model.laneOf(begin)));
    }

    @Test
    void clickOnTheStripe_selectsTheViolationsEvent() throws Exception {
        int begin = acceptingBegin();
        CheckedEvent event = new CheckedEvent(begin, model.nodes().get(model.laneOf(begin)), model.incarnation(begin),
                model.seq(begin), model.lamport(begin), model.atMillis(begin), "receive", Optional.of("Begin"), Optional.empty());
        Violation violation = new Violation("agreement", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event,
                Optional.empty(), Map.of(), "");
        open(OptionalInt.of(0), List.of(violation));
        waitFor("the window at 0", () -> window.selected() == 0 && window.layout() != null);
        // The violation is out of view: jump near it first, keeping the selection elsewhere.
        FxToolkit.call(() -> {
            window.panBy((begin - window.layout().positionAt(window.layout().graphLeft())) * window.layout().pixelsPerEvent
                    - window.layout().graphWidth() / 2);
            return null;
        });
        GraphLayout layout = on(window::layout);
        double x = layout.x(begin);
        double y = layout.stripeRowTop(0) + GraphLayout.STRIPE_ROW_HEIGHT / 2;
        Bounds screen = on(() -> window.canvas().localToScreen(window.canvas().getBoundsInLocal()));
        robot.clickOn(new Point2D(screen.getMinX() + x, screen.getMinY() + y));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(window::selected)).isEqualTo(begin);
    }

    @Test
    void clickOnAnEvent_inTheGraph_selectsIt() throws Exception {
        int begin = acceptingBegin();
        int send = model.counterpart(begin);
        open(OptionalInt.of(begin), List.of());
        WaitForAsyncUtils.waitForFxEvents();
        GraphLayout layout = on(window::layout);
        Bounds screen = on(() -> window.canvas().localToScreen(window.canvas().getBoundsInLocal()));
        robot.clickOn(new Point2D(screen.getMinX() + layout.x(send), screen.getMinY() + layout.laneY(model.laneOf(send))));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(window::selected)).isEqualTo(send);
    }

    @Test
    void filterFields_withAType_makeSteppingVisitOnlyThatTypesMessages() throws Exception {
        open(OptionalInt.of(0), List.of());
        robot.clickOn("#filter-types").write("Begin");
        robot.clickOn("#filter-apply");
        for (int step = 0; step < 4; step++) {
            robot.clickOn("#next-trace");
            WaitForAsyncUtils.waitForFxEvents();
            int selected = on(window::selected);
            assertThat(model.messageType(selected)).as("step %d selected %d", step, selected).isGreaterThanOrEqualTo(0);
            assertThat(model.messageTypes().get(model.messageType(selected))).endsWith(".Begin");
        }
    }

    @Test
    void coneButton_dimsEventsOutsideTheSelectedEventsCone() throws Exception {
        int begin = acceptingBegin();
        open(OptionalInt.of(begin), List.of());
        WaitForAsyncUtils.waitForFxEvents();
        dev.deja.view.Cone cone = model.cone(begin);
        GraphLayout layout = on(window::layout);
        int outside = -1;
        for (int position = Math.max(0, layout.firstVisible()); position < Math.min(model.size(), layout.lastVisible()); position++) {
            if (model.type(position) == EventKind.RECEIVE && !cone.contains(position)) {
                outside = position;
                break;
            }
        }
        assertThat(outside).as("a receive outside the cone in view").isGreaterThanOrEqualTo(0);
        // Inside the mark, above the lane line (which is not dimmed).
        double x = layout.x(outside);
        double y = layout.laneY(model.laneOf(outside)) - 3;
        int before = pixel(x, y);
        robot.clickOn("#cone");
        WaitForAsyncUtils.waitForFxEvents();
        int after = pixel(x, y);
        assertThat(brightness(before)).as("a full-strength mark").isLessThan(200);
        assertThat(brightness(after)).as("the same mark dimmed").isGreaterThan(215);
        assertThat(brightness(pixel(layout.x(begin), layout.laneY(model.laneOf(begin)) - 3))).as("the origin stays")
                .isLessThan(200);
    }

    private int pixel(double x, double y) {
        return on(() -> window.canvas().snapshot(null, null).getPixelReader().getArgb((int) x, (int) y));
    }

    private static int brightness(int argb) {
        return (((argb >> 16) & 0xFF) + ((argb >> 8) & 0xFF) + (argb & 0xFF)) / 3;
    }

    @Test
    void tables_ofACheckedTrace_showTheNodesRowsAndTheirChanges() throws Exception {
        int begin = acceptingBegin();
        int previous = model.previousOnLane(begin);
        while (!acceptedRoundAfter.containsKey(previous)) {
            previous = model.previousOnLane(previous);
        }
        NodeId node = model.nodes().get(model.laneOf(begin));
        storeHistory(node, previous, begin);
        open(OptionalInt.of(begin), List.of());
        waitFor("the table rows", () -> window.tablesStatusText().startsWith(node + "'s rows after position " + begin));
        List<String> lines = on(window::tableLines);
        assertThat(lines).contains("  Agent = 1 row", "      accepted_round = " + acceptedRoundAfter.get(previous) + " → "
                + acceptedRoundAfter.get(begin));
    }

    @Test
    void whyButton_onAFindingWithARowWitness_listsTheRowsChangesUpToTheFinding() throws Exception {
        int begin = acceptingBegin();
        int previous = model.previousOnLane(begin);
        while (!acceptedRoundAfter.containsKey(previous)) {
            previous = model.previousOnLane(previous);
        }
        NodeId node = model.nodes().get(model.laneOf(begin));
        storeHistory(node, previous, begin);
        String row = "Agent[" + node + ":1]";
        CheckedEvent event = new CheckedEvent(begin, node, model.incarnation(begin), model.seq(begin),
                model.lamport(begin), model.atMillis(begin), "receive", Optional.empty(), Optional.empty());
        Violation finding = new Violation("round_stays", Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event,
                Optional.empty(), Map.of(), Map.of(), "", row, false, List.of("Agent"));
        open(OptionalInt.of(0), List.of(finding));
        javafx.scene.Node findingRow = shown("#findings .table-row-cell", 0);
        robot.clickOn(findingRow);
        robot.clickOn("#why");
        waitFor("the why panel's events", () -> !window.why().lines().isEmpty());

        List<String> lines = on(() -> window.why().lines());
        assertThat(on(() -> window.why().titleText())).isEqualTo("Why finding 1: round_stays VIOLATED, witness '" + row
                + "', at position " + begin + " (node " + node + ")");
        assertThat(on(() -> window.why().noteText())).startsWith("the predicate read: Agent; " + lines.size()
                + " event(s) lead to this finding");
        assertThat(lines.getLast()).matches("\\s*" + begin + "\\s.*" + java.util.regex.Pattern.quote(row + " accepted_round: "
                + acceptedRoundAfter.get(previous) + " -> " + acceptedRoundAfter.get(begin) + "; the predicate found witness '"
                + row + "' here"));
        assertThat(lines.getFirst()).contains(row + " new: accepted_round=");
        // Every change of the row is listed, in position order, and nothing after the finding.
        List<Integer> positions = lines.stream().map(line -> Integer.parseInt(line.strip().split("\\s+")[0])).toList();
        assertThat(positions).isSorted().allMatch(position -> position <= begin);

        javafx.scene.Node cause = shown("#why-causes .list-cell", 0);
        robot.clickOn(cause);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(window::selected)).isEqualTo(positions.getFirst());
        press(KeyCode.ESCAPE);
        assertThat(on(() -> window.why().isShown())).isFalse();
        assertThat(on(() -> window.stage().isShowing())).isTrue();
    }

    /** The accepted round of the node on {@code lane} after its last handler call at or before {@code position}. */
    private static long acceptedRoundAt(int lane, int position) {
        long round = -1;
        for (int at = 0; at <= position; at++) {
            if (model.laneOf(at) == lane && acceptedRoundAfter.containsKey(at)) {
                round = acceptedRoundAfter.get(at);
            }
        }
        return round;
    }

    /**
     * Writes a check history for {@code node}'s accepted round, as {@code deja check} would store it, with the
     * values the replayed nodes had at every handler call (without running Python).
     */
    private static void storeHistory(NodeId node, int previous, int begin) {
        TableSchema agent = new TableSchema("Agent", PaxosNode.class.getName(), List.of("accepted_round"));
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_WRITE)) {
            history.beginCheck(List.of(agent));
            List<Integer> handlers = new ArrayList<>(acceptedRoundAfter.keySet());
            handlers.sort(null);
            Map<NodeId, Long> last = new HashMap<>();
            for (int position : handlers) {
                CheckedEvent event = new CheckedEvent(position, model.nodes().get(model.laneOf(position)),
                        model.incarnation(position), model.seq(position), model.lamport(position), model.atMillis(position),
                        model.type(position).traceName(), Optional.empty(), Optional.empty());
                List<RowChange> changes = new ArrayList<>();
                long round = acceptedRoundAfter.get(position);
                Long before = last.get(event.node());
                if (before == null || before != round) {
                    changes.add(new RowChange("Agent", before == null ? RowChange.Kind.INSERT : RowChange.Kind.UPDATE,
                            event.node(), 1, Map.of("accepted_round", round)));
                    last.put(event.node(), round);
                }
                history.append(new StateStep(event, changes));
            }
            history.finishCheck();
        }
        assertThat(previous).isLessThan(begin);
        assertThat(node).isNotNull();
    }

    // ---- keys, findings, help ----

    private static Violation finding(String predicate, int position, Object witness, Map<String, Object> aux) {
        CheckedEvent event = new CheckedEvent(position, model.nodes().get(model.laneOf(position)), model.incarnation(position),
                model.seq(position), model.lamport(position), model.atMillis(position), model.type(position).traceName(),
                Optional.empty(), Optional.empty());
        return new Violation(predicate, Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event, Optional.empty(), aux,
                Map.of(), "", witness, false);
    }

    /** Aux values in declaration order, as a report holds them. */
    private static Map<String, Object> inOrder(String name1, Object value1, String name2, Object value2) {
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put(name1, value1);
        values.put(name2, value2);
        return values;
    }

    private void press(KeyCode... chord) {
        FxToolkit.call(() -> {
            window.canvas().requestFocus();
            return null;
        });
        robot.press(chord).release(chord);
        WaitForAsyncUtils.waitForFxEvents();
    }

    @Test
    void keysNAndShiftN_stepThroughTheFindings_andThePositionBoxAndFindingsFollow() {
        int first = model.size() / 4;
        int second = model.size() / 2;
        List<Violation> findings = List.of(finding("agreement", first, "slot-1", Map.of("changed", 2L)),
                finding("agreement", second, "slot-2", Map.of("changed", 3L)));
        open(OptionalInt.of(0), findings);
        press(KeyCode.N);
        assertThat(on(window::selected)).isEqualTo(first);
        assertThat(on(window::positionText)).isEqualTo(Integer.toString(first));
        assertThat(on(() -> window.findings().selected().orElseThrow().witness())).isEqualTo("slot-1");
        press(KeyCode.N);
        assertThat(on(window::selected)).isEqualTo(second);
        assertThat(on(window::positionText)).isEqualTo(Integer.toString(second));
        press(KeyCode.SHIFT, KeyCode.N);
        assertThat(on(window::selected)).isEqualTo(first);
        press(KeyCode.SHIFT, KeyCode.N);
        assertThat(on(window::selected)).as("no finding before the first").isEqualTo(first);
        assertThat(on(window::statusText)).isEqualTo("no finding before position " + first);
    }

    @Test
    void keysHomeEndAndT_goToTheTracesEndsAndAlongTheMessageType() {
        int begin = acceptingBegin();
        open(OptionalInt.of(begin), List.of());
        press(KeyCode.T);
        int next = on(window::selected);
        assertThat(next).isGreaterThan(begin);
        assertThat(model.messageType(next)).isEqualTo(model.messageType(begin));
        for (int between = begin + 1; between < next; between++) {
            assertThat(model.messageType(between)).as("position %d", between).isNotEqualTo(model.messageType(begin));
        }
        press(KeyCode.SHIFT, KeyCode.T);
        assertThat(on(window::selected)).isEqualTo(begin);
        press(KeyCode.END);
        assertThat(on(window::selected)).isEqualTo(model.size() - 1);
        assertThat(on(window::positionText)).isEqualTo(Integer.toString(model.size() - 1));
        press(KeyCode.HOME);
        assertThat(on(window::selected)).isZero();
    }

    @Test
    void zoomingOut_stopsWhereTheWholeTraceFits() {
        open(OptionalInt.of(model.size() / 2), List.of());
        for (int i = 0; i < 30; i++) {
            press(KeyCode.MINUS);
        }
        GraphLayout layout = on(window::layout);
        assertThat(on(window::pixelsPerEvent)).isEqualTo(on(window::wholeTrace));
        assertThat(layout.firstVisible()).isZero();
        assertThat(layout.lastVisible()).isGreaterThanOrEqualTo(model.size() - 1);
        assertThat(layout.pixelsPerEvent * model.size()).as("the trace spans the graph's width, not a column")
                .isCloseTo(layout.graphWidth(), org.assertj.core.data.Offset.offset(1.0));
        assertThat(layout.legendLines).as("the window draws a legend").isPositive();
    }

    @Test
    void helpKey_listsEveryBinding_andEscapeClosesTheHelpThenTheWindow() {
        open(OptionalInt.of(0), List.of());
        assertThat(on(window::helpShown)).isFalse();
        press(KeyCode.F1);
        assertThat(on(window::helpShown)).isTrue();
        javafx.scene.Node help = robot.lookup("#help").query();
        List<String> texts = on(() -> help.lookupAll(".label").stream()
                .map(node -> ((javafx.scene.control.Label) node).getText()).toList());
        for (KeyBindings.Binding binding : on(() -> window.keys().bindings())) {
            if (!binding.keys().isEmpty()) {
                assertThat(texts).as("the help lists " + binding.keys()).contains(binding.keys());
            }
        }
        assertThat(texts).contains("N / Shift+N", "Home / End", "Escape", "Ctrl+W / Ctrl+Q", "? or F1");
        press(KeyCode.ESCAPE);
        assertThat(on(window::helpShown)).isFalse();
        assertThat(on(() -> window.stage().isShowing())).isTrue();
        press(KeyCode.ESCAPE);
        assertThat(on(() -> window.stage().isShowing())).isFalse();
    }

    @Test
    void ctrlW_closesTheWindow() {
        open(OptionalInt.of(0), List.of());
        press(KeyCode.CONTROL, KeyCode.W);
        assertThat(on(() -> window.stage().isShowing())).isFalse();
    }

    @Test
    void findingsPane_listsEveryFinding_andClickingARowSelectsItsEventAndShowsItInFull() throws Exception {
        int first = model.size() / 4;
        int second = model.size() / 2;
        List<Violation> findings = List.of(finding("agreement", first, "slot-1", Map.of("changed", 2L)),
                finding("validity", second, null, inOrder("value", "v-n2", "round", 7L)));
        open(OptionalInt.of(0), findings);
        NodeId secondNode = model.nodes().get(model.laneOf(second));
        assertThat(on(() -> window.findings().rows())).containsExactly(
                "1 | agreement | slot-1 | " + first + " | " + model.nodes().get(model.laneOf(first)) + " | VIOLATED | changed=2",
                "2 | validity |  | " + second + " | " + secondNode + " | VIOLATED | value=v-n2, round=7");
        javafx.scene.Node row = shown("#findings .table-row-cell", 1);
        robot.clickOn(row);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(on(window::selected)).isEqualTo(second);
        assertThat(on(() -> window.findings().detailsText())).contains("validity (@always): VIOLATED",
                "at position " + second + " on " + secondNode, "aux: value=v-n2, round=7");
    }

    @Test
    void allNodesToggle_showsEveryNodesRowsOfTheCheckedTables() throws Exception {
        int begin = acceptingBegin();
        int previous = model.previousOnLane(begin);
        storeHistory(model.nodes().get(model.laneOf(begin)), previous, begin);
        open(OptionalInt.of(begin), List.of());
        waitFor("the node's rows", () -> window.tablesStatusText().contains("'s rows after position " + begin));
        robot.clickOn("#tables-all");
        waitFor("every node's rows", () -> window.tablesStatusText().startsWith("every node's rows after position " + begin));
        List<String> lines = on(window::tableLines);
        assertThat(lines.getFirst()).isEqualTo("all nodes = tables");
        assertThat(lines.get(1)).isEqualTo("  Agent = " + NODES + " rows on " + NODES + " nodes");
        for (NodeId node : model.nodes()) {
            // The node's last handler call at or before the Begin holds its accepted round then.
            long round = acceptedRoundAt(model.lane(node), begin);
            assertThat(lines).as("the row of " + node).anySatisfy(line -> assertThat(line)
                    .matches("    (. )?" + node + " · oid 1 = (accepted_round=\\d+ → )?accepted_round=" + round));
        }
    }

    @Test
    void keysSAndR_giveTheStateOrTheTablesMostOfTheHeight() {
        open(OptionalInt.of(0), List.of());
        double normal = on(() -> window.details().stateShare());
        assertThat(normal).as("the state part has most of the height already").isGreaterThan(0.5);
        press(KeyCode.S);
        assertThat(on(() -> window.details().stateShare())).isGreaterThan(0.9);
        press(KeyCode.S);
        assertThat(on(() -> window.details().stateShare())).isEqualTo(normal, org.assertj.core.data.Offset.offset(0.01));
        press(KeyCode.R);
        assertThat(on(() -> window.details().tablesShare())).as("R gives the tables most of the height").isGreaterThan(0.6);
        press(KeyCode.S);
        assertThat(on(() -> window.details().stateShare())).as("S from there maximizes the state").isGreaterThan(0.9);
    }

    /**
     * The window as a user sees it, on this run with two findings, at a Begin with the cone on, once the state
     * came from memory: compared with the golden image byte for byte (software renderer, DejaVu Sans).
     */
    @Test
    void window_atABeginWithTheCone_matchesTheGoldenScreenshot() throws Exception {
        int begin = acceptingBegin();
        List<Violation> findings = List.of(finding("agreement", begin, "slot-1", Map.of("changed", 2L)),
                finding("validity", begin + 40, null, Map.of("round", 7L)));
        open(OptionalInt.of(begin), findings);
        waitFor("the state at " + begin, () -> showsStateAt(begin));
        press(KeyCode.LEFT);
        waitFor("the previous state", () -> showsStateAt(model.previousOnLane(begin)));
        press(KeyCode.RIGHT);
        waitFor("the state from memory", () -> showsStateAt(begin) && window.stateStatusText().endsWith("from memory"));
        press(KeyCode.C);
        javafx.scene.Node stateTree = robot.lookup("#state-tree").query();
        byte[] png = on(() -> {
            javafx.scene.image.WritableImage image = window.stage().getScene().snapshot(null);
            int width = (int) image.getWidth();
            int height = (int) image.getHeight();
            int[] argb = new int[width * height];
            image.getPixelReader().getPixels(0, 0, width, height, javafx.scene.image.PixelFormat.getIntArgbInstance(),
                    argb, 0, width);
            // The state tree's scroll offset after "scroll to the first change" depends on whether a layout pass came
            // first (a fresh-clone run drew it one row off), so its rows are masked here; what they show is compared
            // with an independent replay by the state tests above.
            javafx.geometry.Bounds tree = stateTree.localToScene(stateTree.getBoundsInLocal());
            for (int y = Math.max(0, (int) tree.getMinY()); y < Math.min(height, (int) Math.ceil(tree.getMaxY())); y++) {
                for (int x = Math.max(0, (int) tree.getMinX()); x < Math.min(width, (int) Math.ceil(tree.getMaxX())); x++) {
                    argb[y * width + x] = 0xFF808080;
                }
            }
            return PictureRenderer.png(new PictureRenderer.Picture(null, width, height, argb));
        });
        Golden.assertPng("window-paxos-3-seed-4.png", png);
    }
}
