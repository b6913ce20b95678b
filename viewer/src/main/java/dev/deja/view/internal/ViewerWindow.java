package dev.deja.view.internal;

import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import dev.deja.trace.Trace;
import dev.deja.view.Cone;
import dev.deja.view.EventFilter;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import dev.deja.view.WindowSettings;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.Separator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Pane;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;

/**
 * The viewer window: the graph of a trace with its finding stripe and legend, the findings of the loaded report
 * under it, and beside them the selected event in detail (see {@link DetailsPane}).
 *
 * <p>Navigation, after the MaceMC debugger and IDE debuggers: step along the node, along the whole trace, across
 * a message (receive to send and back), to the next finding or the next event of the same message type; Home
 * and End; jump to a position; click an event, a finding in the stripe or a row of the findings. Pan by
 * dragging or scrolling, zoom with Ctrl+scroll or the +/- keys, down to the whole trace. The cone toggle shades
 * the selected event's causes and effects and dims everything else; the filter fields hide nodes, message
 * types, non-matching contents or timers. Every key is in {@link #keys()} and in the help ({@code ?}).
 *
 * <p>Every method runs on the JavaFX thread.
 */
public final class ViewerWindow {
    private static final double DEFAULT_PIXELS_PER_EVENT = 12;
    private static final double MAX_PIXELS_PER_EVENT = 80;

    private final TraceModel model;
    private final WindowSettings settings;
    private final ArcIndex arcs;
    private final Predicate<Violation> dark;

    private final Stage stage;
    private final Canvas canvas = new Canvas();
    private final DetailsPane details;
    private final FindingsPane findings;
    private final KeyBindings keys = new KeyBindings();
    private final VBox help;
    private final WhyPanel why;
    private final TextField jumpField = new TextField();
    private final TextField nodesField = new TextField();
    private final TextField typesField = new TextField();
    private final TextField searchField = new TextField();
    private final CheckBox hideTimers = new CheckBox("no timers");
    private final ToggleButton coneToggle = new ToggleButton("Cone");
    private final Label positionLabel = new Label();
    private final SplitPane left = new SplitPane();

    private EventFilter filter;
    private BitSet shown;
    private int[] rowOfLane;
    private int selected = -1;
    private Cone cone;
    private double firstPosition;
    private double pixelsPerEvent = DEFAULT_PIXELS_PER_EVENT;
    private GraphLayout layout;
    private double dragStartX = Double.NaN;
    private double dragStartFirst;
    private boolean dragged;

    private ViewerWindow(TraceModel model, WindowSettings settings, Stage stage) {
        this.model = model;
        this.settings = settings;
        this.stage = stage;
        this.arcs = ArcIndex.of(model);
        StateService states = new StateService(Trace.open(settings.trace()), model, settings.classLoader());
        Optional<CheckedTables> tables;
        String tablesNote;
        try {
            tables = CheckedTables.open(settings.trace());
            tablesNote = tables.isEmpty() ? "no checked tables: run 'deja check TRACE SCRIPT' to store them" : "";
        } catch (RuntimeException e) {
            tables = Optional.empty();
            tablesNote = "checked tables unavailable: " + e.getMessage();
        }
        PictureSettings screening = PictureSettings.builder(model.size()).thresholds(settings.thresholds()).build();
        this.dark = screening::isDark;
        this.details = new DetailsPane(model, states, tables, tablesNote, () -> selected);
        this.findings = new FindingsPane(settings.violations(), dark, this::jumpTo);
        this.why = new WhyPanel(model, settings.trace(), this::jumpTo);
        findings.addToHeader(button("why", "Why?", "Why the selected finding happened: the events that led to it, as"
                + " 'deja why' lists them (W)", this::explainFinding));
        bindKeys();
        this.help = keys.helpPane();
        applyFilter(settings.filter());
        build();
    }

    /** Opens a window on {@code model}; call on the JavaFX thread. */
    public static ViewerWindow show(TraceModel model, WindowSettings settings) {
        Stage stage = new Stage();
        ViewerWindow window = new ViewerWindow(model, settings, stage);
        stage.show();
        window.fitGraphHeight();
        int start = settings.at().orElse(settings.violations().isEmpty() ? 0
                : (int) settings.violations().getFirst().event().position());
        window.select(start);
        window.centerOn(start);
        return window;
    }

    /**
     * Gives the graph the height its lanes, stripe and legend need at full lane height (within limits), and the
     * findings the rest: a few nodes leave no empty band under the graph.
     */
    private void fitGraphHeight() {
        double total = left.getHeight();
        if (total <= 0) {
            return;
        }
        int rows = 0;
        for (int row : rowOfLane) {
            rows = Math.max(rows, row + 1);
        }
        int predicates = frame().predicates().size();
        double needed = GraphLayout.AXIS_HEIGHT + rows * GraphLayout.LANE_HEIGHT * 1.5 + GraphLayout.STRIPE_GAP
                + predicates * GraphLayout.STRIPE_ROW_HEIGHT + 8 + GraphLayout.LEGEND_GAP + 3 * GraphLayout.LEGEND_LINE_HEIGHT + 12;
        left.setDividerPositions(Math.max(0.35, Math.min(0.8, needed / total)));
    }

    /** The stage, to wait for it to close. */
    public Stage stage() {
        return stage;
    }

    // ---- building ----

    private void build() {
        Pane graph = new Pane(canvas);
        graph.setMinSize(200, 120);
        canvas.widthProperty().bind(graph.widthProperty());
        canvas.heightProperty().bind(graph.heightProperty());
        canvas.widthProperty().addListener((o, a, b) -> repaint());
        canvas.heightProperty().addListener((o, a, b) -> repaint());
        canvas.setId("graph");
        canvas.setFocusTraversable(true);
        canvas.addEventHandler(MouseEvent.MOUSE_PRESSED, this::pressed);
        canvas.addEventHandler(MouseEvent.MOUSE_DRAGGED, this::dragged);
        canvas.addEventHandler(MouseEvent.MOUSE_RELEASED, this::released);
        canvas.addEventHandler(ScrollEvent.SCROLL, this::scrolled);

        left.getItems().setAll(graph, findings.pane());
        left.setOrientation(Orientation.VERTICAL);
        left.setDividerPositions(0.72);
        SplitPane split = new SplitPane(left, details.pane());
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.64);

        help.setVisible(false);
        StackPane center = new StackPane(split, why.pane(), help);
        BorderPane root = new BorderPane(center);
        root.setTop(toolBar());
        root.setBottom(positionLabel);
        positionLabel.setId("status");
        BorderPane.setMargin(positionLabel, new Insets(2, 6, 2, 6));
        Scene scene = new Scene(root, 1400, 860);
        scene.addEventFilter(KeyEvent.KEY_PRESSED, this::key);
        stage.setScene(scene);
        stage.setTitle("deja view " + model.name());
        stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, event -> {
            details.close();
            why.close();
        });
    }

    private ToolBar toolBar() {
        Button previousNode = button("previous-node", "◀ node", "Previous event of this node (Left)", () -> stepNode(-1));
        Button nextNode = button("next-node", "node ▶", "Next event of this node (Right)", () -> stepNode(1));
        Button previousTrace = button("previous-trace", "◀ trace", "Previous event of the trace (Shift+Left)", () -> stepTrace(-1));
        Button nextTrace = button("next-trace", "trace ▶", "Next event of the trace (Shift+Right)", () -> stepTrace(1));
        Button message = button("across-message", "⇄ message", "From a receive to its send and back (M)", this::stepMessage);
        Button previousFinding = button("previous-finding", "◀ finding", "Previous finding (Shift+N)", () -> stepFinding(-1));
        Button nextFinding = button("next-finding", "finding ▶", "Next finding (N)", () -> stepFinding(1));
        jumpField.setId("jump");
        jumpField.setPromptText("position");
        jumpField.setPrefColumnCount(6);
        jumpField.setOnAction(event -> jump());
        Button go = button("go", "Go", "Jump to the position", this::jump);
        coneToggle.setId("cone");
        coneToggle.setTooltip(new Tooltip("Shade the selected event's causes and effects, dim everything else (C)"));
        coneToggle.selectedProperty().addListener((o, a, b) -> setCone(b));
        coneToggle.setFocusTraversable(false);
        nodesField.setId("filter-nodes");
        nodesField.setPromptText("nodes: n1,n2");
        nodesField.setPrefColumnCount(7);
        typesField.setId("filter-types");
        typesField.setPromptText("types: Begin,Last");
        typesField.setPrefColumnCount(8);
        searchField.setId("filter-search");
        searchField.setPromptText("search");
        searchField.setPrefColumnCount(7);
        hideTimers.setId("filter-timers");
        for (TextField field : List.of(nodesField, typesField, searchField)) {
            field.setOnAction(event -> filterFromFields());
        }
        hideTimers.setOnAction(event -> filterFromFields());
        Button apply = button("filter-apply", "Filter", "Apply the filter fields", this::filterFromFields);
        Button zoomIn = button("zoom-in", "+", "Zoom in (+)", () -> zoom(1.5, Double.NaN));
        Button zoomOut = button("zoom-out", "−", "Zoom out (-), down to the whole trace", () -> zoom(1 / 1.5, Double.NaN));
        Button helpButton = button("help-button", "?", "Keys (?)", this::toggleHelp);
        showFilter(settings.filter());
        return new ToolBar(previousNode, nextNode, previousTrace, nextTrace, message, previousFinding, nextFinding,
                new Separator(), jumpField, go, coneToggle, new Separator(), zoomOut, zoomIn, new Separator(), nodesField,
                typesField, searchField, hideTimers, apply, new Separator(), helpButton);
    }

    /** A toolbar button that does not take the keyboard focus from the graph; the comparison window's too. */
    static Button button(String id, String text, String tip, Runnable action) {
        Button button = new Button(text);
        button.setId(id);
        button.setTooltip(new Tooltip(tip));
        button.setOnAction(event -> action.run());
        button.setFocusTraversable(false);
        return button;
    }

    private void bindKeys() {
        keys.bind("← / →", "previous / next event of the selected node", KeyBindings.plain(KeyCode.LEFT), () -> stepNode(-1))
                .bind("", "", KeyBindings.plain(KeyCode.RIGHT), () -> stepNode(1))
                .bind("Shift+← / Shift+→", "previous / next event of the trace", KeyBindings.shift(KeyCode.LEFT), () -> stepTrace(-1))
                .bind("", "", KeyBindings.shift(KeyCode.RIGHT), () -> stepTrace(1))
                .bind("M", "across the message: from a receive to its send, from a send to its receive",
                        KeyBindings.plain(KeyCode.M), this::stepMessage)
                .bind("N / Shift+N", "next / previous finding of the report", KeyBindings.plain(KeyCode.N), () -> stepFinding(1))
                .bind("", "", KeyBindings.shift(KeyCode.N), () -> stepFinding(-1))
                .bind("W", "why: the events that led to the selected finding ('deja why'); Escape closes it",
                        KeyBindings.plain(KeyCode.W), this::explainFinding)
                .bind("T / Shift+T", "next / previous event of the selected event's message type",
                        KeyBindings.plain(KeyCode.T), () -> stepType(1))
                .bind("", "", KeyBindings.shift(KeyCode.T), () -> stepType(-1))
                .bind("Home / End", "first / last event of the trace", KeyBindings.plain(KeyCode.HOME), this::home)
                .bind("", "", KeyBindings.plain(KeyCode.END), this::end)
                .bind("C", "cone: shade the selected event's causes (blue) and effects (orange), dim the rest",
                        KeyBindings.plain(KeyCode.C), () -> setCone(!coneToggle.isSelected()))
                .bind("+ / −", "zoom in / out at the middle (out down to the whole trace)",
                        KeyBindings.text("+", KeyCode.PLUS, KeyCode.EQUALS, KeyCode.ADD), () -> zoom(1.5, Double.NaN))
                .bind("", "", KeyBindings.text("-", KeyCode.MINUS, KeyCode.SUBTRACT), () -> zoom(1 / 1.5, Double.NaN))
                .bind("S", "give the node state nearly all the height, or back", KeyBindings.plain(KeyCode.S),
                        details::toggleStateMaximized)
                .bind("R", "give the checked tables most of the height, or back", KeyBindings.plain(KeyCode.R),
                        details::toggleTablesMaximized)
                .bind("A", "checked tables: every node's rows, or the selected node's", KeyBindings.plain(KeyCode.A),
                        details::toggleAllRows)
                .bind("? or F1", "this help", event -> "?".equals(event.getText()) || event.getCode() == KeyCode.F1
                        || event.isShiftDown() && event.getCode() == KeyCode.SLASH, this::toggleHelp)
                .bind("Escape", "close the help, else the window", KeyBindings.plain(KeyCode.ESCAPE), this::escape)
                .bind("Ctrl+W / Ctrl+Q", "close the window", event -> KeyBindings.control(KeyCode.W).test(event)
                        || KeyBindings.control(KeyCode.Q).test(event), this::close);
    }

    /** The key table (for tests and the help). */
    KeyBindings keys() {
        return keys;
    }

    // ---- navigation ----

    /** The selected position, or -1. */
    public int selected() {
        return selected;
    }

    /** Selects the entry at {@code position}, shows it and fetches its node's state. */
    public void select(int position) {
        if (position < 0 || position >= model.size()) {
            return;
        }
        selected = position;
        if (coneToggle.isSelected()) {
            cone = model.cone(position);
        }
        jumpField.setText(Integer.toString(position));
        ensureVisible(position);
        findings.showFindingAt(position);
        details.show(position);
        repaint();
    }

    /** Steps to the node's next ({@code direction} 1) or previous (-1) shown entry. */
    public void stepNode(int direction) {
        if (selected < 0) {
            return;
        }
        int at = direction > 0 ? model.nextOnLane(selected) : model.previousOnLane(selected);
        while (at >= 0 && !isShown(at)) {
            at = direction > 0 ? model.nextOnLane(at) : model.previousOnLane(at);
        }
        if (at >= 0) {
            select(at);
        }
    }

    /** Steps to the next or previous shown entry of the whole trace. */
    public void stepTrace(int direction) {
        int at = (selected < 0 ? -1 : selected) + direction;
        while (at >= 0 && at < model.size() && !(isShown(at) && rowOfLane[model.laneOf(at)] >= 0)) {
            at += direction;
        }
        if (at >= 0 && at < model.size()) {
            select(at);
        }
    }

    /** From a receive to its send, from a send to its (first) receive. */
    public void stepMessage() {
        if (selected >= 0 && model.counterpart(selected) >= 0) {
            select(model.counterpart(selected));
        }
    }

    /** Selects the next ({@code direction} 1) or previous (-1) finding of the report, in position order. */
    public void stepFinding(int direction) {
        Optional<Violation> next = findings.step(selected, direction);
        if (next.isPresent()) {
            findings.choose(next.get()); // selecting the row selects its event
        } else {
            positionLabel.setText(settings.violations().isEmpty() ? "no findings: open the trace with --report FILE"
                    : "no finding " + (direction > 0 ? "after" : "before") + " position " + selected);
        }
    }

    /** Selects the next or previous shown event (send or receive) of the selected event's message type. */
    public void stepType(int direction) {
        int type = selected < 0 ? -1 : model.messageType(selected);
        if (type < 0) {
            positionLabel.setText("the selected event is not a message: T steps along one message type");
            return;
        }
        for (int at = selected + direction; at >= 0 && at < model.size(); at += direction) {
            if (model.messageType(at) == type && isShown(at) && rowOfLane[model.laneOf(at)] >= 0) {
                jumpTo(at);
                return;
            }
        }
        positionLabel.setText("no " + ColumnarTraceModel.simpleName(model.messageTypes().get(type)) + " "
                + (direction > 0 ? "after" : "before") + " position " + selected);
    }

    /** Selects the first shown event of the trace. */
    public void home() {
        int at = 0;
        while (at < model.size() && !(isShown(at) && rowOfLane[model.laneOf(at)] >= 0)) {
            at++;
        }
        if (at < model.size()) {
            jumpTo(at);
        }
    }

    /** Selects the last shown event of the trace. */
    public void end() {
        int at = model.size() - 1;
        while (at >= 0 && !(isShown(at) && rowOfLane[model.laneOf(at)] >= 0)) {
            at--;
        }
        if (at >= 0) {
            jumpTo(at);
        }
    }

    /**
     * Shows why the selected finding happened (the row selected in the findings, else the finding at the selected
     * event) in a panel over the window, as {@code deja why} lists it; says so if no finding is selected.
     */
    public void explainFinding() {
        Optional<Violation> finding = findings.selected();
        if (finding.isEmpty()) {
            finding = settings.violations().stream().filter(v -> v.event().position() == selected).findFirst();
        }
        if (finding.isEmpty()) {
            why.cannotExplain(settings.violations().isEmpty()
                    ? "no findings: check the trace ('deja check TRACE SCRIPT') or open it with --report FILE"
                    : "select a finding first (a row of the findings, a mark in the stripe, or N)");
            return;
        }
        why.explain(finding.get(), settings.violations().indexOf(finding.get()) + 1);
    }

    /** Shows the key help over the window, or hides it. */
    public void toggleHelp() {
        help.setVisible(!help.isVisible());
    }

    boolean helpShown() {
        return help.isVisible();
    }

    private void escape() {
        if (help.isVisible()) {
            help.setVisible(false);
        } else if (why.isShown()) {
            why.hide();
        } else {
            close();
        }
    }

    /** Closes the window. */
    public void close() {
        stage.close();
    }

    /** Jumps to {@code position}. */
    public void jumpTo(int position) {
        select(position);
        centerOn(position);
    }

    private void jump() {
        String text = jumpField.getText().strip();
        try {
            int position = Integer.parseInt(text);
            if (position < 0 || position >= model.size()) {
                positionLabel.setText("position " + text + " is outside the trace (0.." + (model.size() - 1) + ")");
                return;
            }
            jumpTo(position);
        } catch (NumberFormatException e) {
            positionLabel.setText("'" + text + "' is not a position");
        }
    }

    /** Dims everything outside the selected event's cone, or stops doing so. */
    public void setCone(boolean on) {
        if (coneToggle.isSelected() != on) {
            coneToggle.setSelected(on); // calls back here through the listener
            return;
        }
        cone = on && selected >= 0 ? model.cone(selected) : null;
        repaint();
    }

    /** Shows only what {@code value} lets through (the filter fields show it too). */
    public void setFilter(EventFilter value) {
        applyFilter(value);
        showFilter(value);
        repaint();
    }

    private void showFilter(EventFilter value) {
        nodesField.setText(String.join(",", value.nodes().stream().map(NodeId::value).sorted().toList()));
        typesField.setText(String.join(",", value.messageTypes().stream().sorted().toList()));
        searchField.setText(value.text());
        hideTimers.setSelected(value.timers() == EventFilter.Timers.HIDE);
    }

    private void applyFilter(EventFilter value) {
        filter = value;
        shown = value.isAll() ? null : model.matching(value);
        rowOfLane = new int[model.nodes().size()];
        int row = 0;
        for (int lane = 0; lane < rowOfLane.length; lane++) {
            boolean visible = value.nodes().isEmpty() || value.nodes().contains(model.nodes().get(lane));
            rowOfLane[lane] = visible ? row++ : -1;
        }
    }

    private void filterFromFields() {
        EventFilter.Builder builder = EventFilter.builder();
        List<String> unknown = new ArrayList<>();
        for (String node : split(nodesField.getText())) {
            try {
                NodeId id = new NodeId(node);
                if (model.lane(id) < 0) {
                    unknown.add(node);
                } else {
                    builder.node(id);
                }
            } catch (IllegalArgumentException e) {
                unknown.add(node);
            }
        }
        split(typesField.getText()).forEach(builder::messageType);
        builder.text(searchField.getText());
        builder.timers(hideTimers.isSelected() ? EventFilter.Timers.HIDE : EventFilter.Timers.SHOW);
        setFilter(builder.build());
        positionLabel.setText(unknown.isEmpty() ? status() : "no node " + String.join(", ", unknown) + " in this trace");
    }

    private static List<String> split(String text) {
        List<String> parts = new ArrayList<>();
        for (String part : text.split("[,\\s]+")) {
            if (!part.isBlank()) {
                parts.add(part.strip());
            }
        }
        return parts;
    }

    private boolean isShown(int position) {
        return shown == null || shown.get(position);
    }

    // ---- viewport ----

    private double graphWidth() {
        return Math.max(50, canvas.getWidth() - (layout == null ? 60 : layout.leftMargin) - GraphLayout.RIGHT_PAD);
    }

    private void centerOn(int position) {
        firstPosition = position - graphWidth() / pixelsPerEvent / 2;
        clampViewport();
        repaint();
    }

    private void ensureVisible(int position) {
        double visible = graphWidth() / pixelsPerEvent;
        if (position < firstPosition + 1 || position > firstPosition + visible - 2) {
            firstPosition = position - visible / 2;
            clampViewport();
        }
    }

    private void clampViewport() {
        double visible = graphWidth() / pixelsPerEvent;
        firstPosition = Math.max(-visible * 0.5, Math.min(model.size() - visible * 0.5, firstPosition));
    }

    /** The zoom at which the whole trace fits the graph's width: zooming out stops there. */
    double wholeTrace() {
        return Math.min(MAX_PIXELS_PER_EVENT, graphWidth() / model.size());
    }

    /** The zoom, in pixels per position. */
    double pixelsPerEvent() {
        return pixelsPerEvent;
    }

    /** Multiplies the zoom by {@code factor}, keeping the position under {@code anchorX} (NaN: the middle) in place. */
    public void zoom(double factor, double anchorX) {
        double left = layout == null ? 60 : layout.leftMargin;
        double x = Double.isNaN(anchorX) ? left + graphWidth() / 2 : anchorX;
        double anchor = firstPosition + (x - left) / pixelsPerEvent;
        pixelsPerEvent = Math.max(wholeTrace(), Math.min(MAX_PIXELS_PER_EVENT, pixelsPerEvent * factor));
        firstPosition = anchor - (x - left) / pixelsPerEvent;
        clampViewport();
        repaint();
    }

    /** Moves the view right by {@code pixels} (left when negative). */
    public void panBy(double pixels) {
        firstPosition += pixels / pixelsPerEvent;
        clampViewport();
        repaint();
    }

    private void pressed(MouseEvent event) {
        canvas.requestFocus();
        dragStartX = event.getX();
        dragStartFirst = firstPosition;
        dragged = false;
    }

    private void dragged(MouseEvent event) {
        if (Double.isNaN(dragStartX)) {
            return;
        }
        double dx = event.getX() - dragStartX;
        if (Math.abs(dx) > 3) {
            dragged = true;
        }
        firstPosition = dragStartFirst - dx / pixelsPerEvent;
        clampViewport();
        repaint();
    }

    private void released(MouseEvent event) {
        if (!dragged) {
            click(event.getX(), event.getY());
        }
        dragStartX = Double.NaN;
    }

    private void scrolled(ScrollEvent event) {
        if (event.isControlDown()) {
            zoom(event.getDeltaY() > 0 ? 1.25 : 0.8, event.getX());
        } else {
            double delta = Math.abs(event.getDeltaX()) > Math.abs(event.getDeltaY()) ? event.getDeltaX() : event.getDeltaY();
            panBy(-delta);
        }
        event.consume();
    }

    /** Selects what is at (x, y) of the graph: the nearest shown entry on that lane, or a violation of the stripe. */
    public void click(double x, double y) {
        if (layout == null) {
            return;
        }
        int stripeRow = layout.stripeRowAt(y);
        if (stripeRow >= 0) {
            violationAt(x, stripeRow).ifPresent(this::select);
            return;
        }
        int lane = layout.laneAt(y);
        if (lane < 0 || x < layout.graphLeft()) {
            return;
        }
        int nearest = nearestOnLane(lane, x, Math.max(8, pixelsPerEvent));
        if (nearest >= 0) {
            select(nearest);
        }
    }

    private Optional<Integer> violationAt(double x, int row) {
        GraphFrame frame = frame();
        String predicate = frame.predicates().get(row);
        Integer best = null;
        double bestDistance = Double.MAX_VALUE;
        for (Violation violation : settings.violations()) {
            if (!violation.predicate().equals(predicate)) {
                continue;
            }
            double[] box = GraphPainter.stripeBox(layout, violation, model.size(), row);
            double distance = x < box[0] ? box[0] - x : x > box[0] + box[2] ? x - box[0] - box[2] : 0;
            if (distance < bestDistance && distance <= 4) {
                bestDistance = distance;
                best = (int) violation.event().position();
            }
        }
        return Optional.ofNullable(best);
    }

    private int nearestOnLane(int lane, double x, double tolerance) {
        int guess = Math.max(0, Math.min(model.size() - 1, layout.positionAt(x)));
        // Binary search the lane's entries for the first at or after the guess.
        int low = 0;
        int high = model.laneSize(lane) - 1;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (model.positionOf(lane, middle) < guess) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        int best = -1;
        double bestDistance = tolerance;
        for (int ordinal = Math.max(0, low - 3); ordinal <= Math.min(model.laneSize(lane) - 1, low + 3); ordinal++) {
            int position = model.positionOf(lane, ordinal);
            double distance = Math.abs(layout.x(position) - x);
            if (isShown(position) && distance <= bestDistance) {
                bestDistance = distance;
                best = position;
            }
        }
        return best;
    }

    private void key(KeyEvent event) {
        if (event.getTarget() instanceof TextField && event.getCode() != KeyCode.ESCAPE) {
            return;
        }
        if (keys.handle(event)) {
            event.consume();
        }
    }

    // ---- painting ----

    private GraphFrame frame() {
        return new GraphFrame(model, arcs, shown, rowOfLane, selected, cone, settings.violations(), dark, null, true);
    }

    /** Paints the visible window of the graph now. */
    public void repaint() {
        double width = canvas.getWidth();
        double height = canvas.getHeight();
        if (width <= 0 || height <= 0) {
            return;
        }
        GraphFrame frame = frame();
        layout = GraphPainter.windowLayout(frame, width, height, firstPosition, pixelsPerEvent);
        GraphPainter.paint(canvas.getGraphicsContext2D(), layout, frame);
        if (layout.height < height) {
            canvas.getGraphicsContext2D().setFill(Palette.BACKGROUND);
            canvas.getGraphicsContext2D().fillRect(0, layout.height, width, height - layout.height);
        }
        positionLabel.setText(status());
    }

    private String status() {
        int from = Math.max(0, layout == null ? 0 : layout.firstVisible());
        int to = Math.min(model.size() - 1, layout == null ? 0 : layout.lastVisible());
        return String.format(Locale.ROOT, "positions %d..%d of %d   %s%s", from, to, model.size(),
                selected >= 0 ? "selected " + selected : "", shown == null ? "" : "   filtered: " + shown.cardinality() + " entries");
    }

    /** The layout of the last paint (for tests). */
    GraphLayout layout() {
        return layout;
    }

    Canvas canvas() {
        return canvas;
    }

    // ---- parts, for tests ----

    WhyPanel why() {
        return why;
    }

    DetailsPane details() {
        return details;
    }

    FindingsPane findings() {
        return findings;
    }

    String positionText() {
        return jumpField.getText();
    }

    String statusText() {
        return positionLabel.getText();
    }

    List<String> stateLines() {
        return details.stateLines();
    }

    List<String> tableLines() {
        return details.tableLines();
    }

    String stateStatusText() {
        return details.stateStatusText();
    }

    String tablesStatusText() {
        return details.tablesStatusText();
    }

    String eventHeaderText() {
        return details.eventHeaderText();
    }
}
