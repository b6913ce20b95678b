package dev.deja.view.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import dev.deja.trace.EventJson;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import dev.deja.view.Cone;
import dev.deja.view.EventFilter;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import dev.deja.view.WindowSettings;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import javafx.application.Platform;
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
import javafx.scene.control.TreeCell;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;

/**
 * The viewer window: the graph of a trace with its violation stripe, and beside it the selected event, its
 * content, and its node's state right after it (replayed) with the difference from the node's previous
 * event, plus the node's rows in the checked tables when the trace was checked.
 *
 * <p>Navigation, after the MaceMC debugger: step along the node, along the whole trace, or across a message
 * (receive to send and back); jump to a position; click a violation in the stripe. Pan by dragging or
 * scrolling, zoom with Ctrl+scroll or the +/- keys. The cone toggle dims everything outside the selected
 * event's happens-before cone; the filter fields hide nodes, message types, non-matching contents or timers.
 *
 * <p>Every method runs on the JavaFX thread. State and table rows are computed on worker threads and
 * applied when they arrive, unless the selection moved on meanwhile.
 */
public final class ViewerWindow {
    private static final double DEFAULT_PIXELS_PER_EVENT = 12;
    private static final double MIN_PIXELS_PER_EVENT = 1e-4;
    private static final double MAX_PIXELS_PER_EVENT = 80;

    private final TraceModel model;
    private final WindowSettings settings;
    private final ArcIndex arcs;
    private final StateService states;
    private final Optional<CheckedTables> tables;
    private final ExecutorService tableWorker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "deja-view-tables");
        thread.setDaemon(true);
        return thread;
    });
    private final Predicate<Violation> dark;
    private final MessageCodec codec = MessageCodec.defaultCodec();

    private final Stage stage;
    private final Canvas canvas = new Canvas();
    private final Label eventHeader = new Label();
    private final TreeView<String> eventTree = new TreeView<>();
    private final Label stateStatus = new Label();
    private final TreeView<ObjectTree.Diff> stateTree = new TreeView<>();
    private final Label tablesStatus = new Label();
    private final TreeView<ObjectTree.Diff> tablesTree = new TreeView<>();
    private final TextField jumpField = new TextField();
    private final TextField nodesField = new TextField();
    private final TextField typesField = new TextField();
    private final TextField searchField = new TextField();
    private final CheckBox hideTimers = new CheckBox("hide timers");
    private final ToggleButton coneToggle = new ToggleButton("Cone");
    private final Label positionLabel = new Label();

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
        this.states = new StateService(Trace.open(settings.trace()), model, settings.classLoader());
        Optional<CheckedTables> opened;
        String tablesProblem = null;
        try {
            opened = CheckedTables.open(settings.trace());
        } catch (RuntimeException e) {
            opened = Optional.empty();
            tablesProblem = e.getMessage();
        }
        this.tables = opened;
        PictureSettings screening = PictureSettings.builder(model.size()).thresholds(settings.thresholds()).build();
        this.dark = screening::isDark;
        applyFilter(settings.filter());
        build();
        tablesStatus.setText(tablesProblem != null ? "checked tables unavailable: " + tablesProblem
                : tables.isEmpty() ? "no checked tables: run 'deja check " + settings.trace() + " SCRIPT' to store them"
                : "");
    }

    /** Opens a window on {@code model}; call on the JavaFX thread. */
    public static ViewerWindow show(TraceModel model, WindowSettings settings) {
        Stage stage = new Stage();
        ViewerWindow window = new ViewerWindow(model, settings, stage);
        stage.show();
        int start = settings.at().orElse(settings.violations().isEmpty() ? 0
                : (int) settings.violations().getFirst().event().position());
        window.select(start);
        window.centerOn(start);
        return window;
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

        eventHeader.setId("event-header");
        eventHeader.setWrapText(true);
        eventHeader.setMinHeight(Region.USE_PREF_SIZE);
        eventTree.setId("event-tree");
        eventTree.setShowRoot(false);
        stateStatus.setId("state-status");
        stateStatus.setWrapText(true);
        stateStatus.setMinHeight(Region.USE_PREF_SIZE);
        stateTree.setId("state-tree");
        stateTree.setCellFactory(view -> new DiffCell());
        tablesStatus.setId("tables-status");
        tablesStatus.setWrapText(true);
        tablesStatus.setMinHeight(Region.USE_PREF_SIZE);
        tablesTree.setId("tables-tree");
        tablesTree.setShowRoot(false);
        tablesTree.setCellFactory(view -> new DiffCell());
        VBox.setVgrow(eventTree, Priority.SOMETIMES);
        VBox.setVgrow(stateTree, Priority.ALWAYS);
        VBox.setVgrow(tablesTree, Priority.SOMETIMES);
        VBox details = new VBox(6, bold("Event"), eventHeader, eventTree, bold("Node state after the event"), stateStatus,
                stateTree, bold("Checked tables"), tablesStatus, tablesTree);
        details.setPadding(new Insets(6));
        details.setMinWidth(260);

        SplitPane split = new SplitPane(graph, details);
        split.setOrientation(Orientation.HORIZONTAL);
        split.setDividerPositions(0.66);

        BorderPane root = new BorderPane(split);
        root.setTop(toolBar());
        root.setBottom(positionLabel);
        BorderPane.setMargin(positionLabel, new Insets(2, 6, 2, 6));
        Scene scene = new Scene(root, 1400, 820);
        scene.addEventFilter(KeyEvent.KEY_PRESSED, this::key);
        stage.setScene(scene);
        stage.setTitle("deja view " + model.name());
        stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, event -> {
            states.close();
            tableWorker.shutdownNow();
        });
    }

    private static Label bold(String text) {
        Label label = new Label(text);
        label.setStyle("-fx-font-weight: bold");
        return label;
    }

    private ToolBar toolBar() {
        Button previousNode = button("previous-node", "◀ node", "Previous event of this node (Left)", () -> stepNode(-1));
        Button nextNode = button("next-node", "node ▶", "Next event of this node (Right)", () -> stepNode(1));
        Button previousTrace = button("previous-trace", "◀ trace", "Previous event of the trace (Shift+Left)", () -> stepTrace(-1));
        Button nextTrace = button("next-trace", "trace ▶", "Next event of the trace (Shift+Right)", () -> stepTrace(1));
        Button message = button("across-message", "⇄ message", "From a receive to its send and back (M)", this::stepMessage);
        jumpField.setId("jump");
        jumpField.setPromptText("position");
        jumpField.setPrefColumnCount(8);
        jumpField.setOnAction(event -> jump());
        Button go = button("go", "Go", "Jump to the position", this::jump);
        coneToggle.setId("cone");
        coneToggle.setTooltip(new Tooltip("Dim everything outside the selected event's happens-before cone (C)"));
        coneToggle.selectedProperty().addListener((o, a, b) -> setCone(b));
        nodesField.setId("filter-nodes");
        nodesField.setPromptText("nodes: n1,n2");
        nodesField.setPrefColumnCount(9);
        typesField.setId("filter-types");
        typesField.setPromptText("types: Begin,Last");
        typesField.setPrefColumnCount(10);
        searchField.setId("filter-search");
        searchField.setPromptText("search contents");
        searchField.setPrefColumnCount(10);
        hideTimers.setId("filter-timers");
        for (TextField field : List.of(nodesField, typesField, searchField)) {
            field.setOnAction(event -> filterFromFields());
        }
        hideTimers.setOnAction(event -> filterFromFields());
        Button apply = button("filter-apply", "Filter", "Apply the filter fields", this::filterFromFields);
        Button zoomIn = button("zoom-in", "+", "Zoom in (+)", () -> zoom(1.5, Double.NaN));
        Button zoomOut = button("zoom-out", "−", "Zoom out (-)", () -> zoom(1 / 1.5, Double.NaN));
        showFilter(settings.filter());
        return new ToolBar(previousNode, nextNode, previousTrace, nextTrace, message, new Separator(), jumpField, go,
                coneToggle, new Separator(), zoomOut, zoomIn, new Separator(), nodesField, typesField, searchField,
                hideTimers, apply);
    }

    private static Button button(String id, String text, String tip, Runnable action) {
        Button button = new Button(text);
        button.setId(id);
        button.setTooltip(new Tooltip(tip));
        button.setOnAction(event -> action.run());
        button.setFocusTraversable(false);
        return button;
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
        ensureVisible(position);
        showEvent(position);
        fetchState(position);
        fetchTables(position);
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

    /** Multiplies the zoom by {@code factor}, keeping the position under {@code anchorX} (NaN: the middle) in place. */
    public void zoom(double factor, double anchorX) {
        double left = layout == null ? 60 : layout.leftMargin;
        double x = Double.isNaN(anchorX) ? left + graphWidth() / 2 : anchorX;
        double anchor = firstPosition + (x - left) / pixelsPerEvent;
        pixelsPerEvent = Math.max(MIN_PIXELS_PER_EVENT, Math.min(MAX_PIXELS_PER_EVENT, pixelsPerEvent * factor));
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
        if (event.getTarget() instanceof TextField) {
            return;
        }
        boolean handled = true;
        switch (event.getCode()) {
            case LEFT -> {
                if (event.isShiftDown()) {
                    stepTrace(-1);
                } else {
                    stepNode(-1);
                }
            }
            case RIGHT -> {
                if (event.isShiftDown()) {
                    stepTrace(1);
                } else {
                    stepNode(1);
                }
            }
            case M -> stepMessage();
            case C -> setCone(!coneToggle.isSelected());
            case PLUS, EQUALS, ADD -> zoom(1.5, Double.NaN);
            case MINUS, SUBTRACT -> zoom(1 / 1.5, Double.NaN);
            default -> handled = false;
        }
        if (handled) {
            event.consume();
        }
    }

    // ---- painting ----

    private GraphFrame frame() {
        return new GraphFrame(model, arcs, shown, rowOfLane, selected, cone, settings.violations(), dark, null, false);
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

    // ---- details ----

    private void showEvent(int position) {
        TraceEvent entry = model.entry(position);
        String head = String.format(Locale.ROOT, "position %d · %s · %s%nincarnation %d · seq %d · Lamport %d · node clock %d ms",
                position, entry.node(), EventText.describe(model, position), entry.incarnation(), entry.seq(),
                entry.lamport(), entry.atMillis());
        eventHeader.setText(head);
        JsonNode json = EventJson.toJson(entry, codec);
        if (model.type(position) == dev.deja.trace.EventKind.SEND && model.counterpart(position) >= 0) {
            ((com.fasterxml.jackson.databind.node.ObjectNode) json).set("message (as received)",
                    EventJson.toJson(model.entry(model.counterpart(position)), codec).get("message"));
        }
        TreeItem<String> root = jsonItem("event", json);
        eventTree.setRoot(root);
        expandAll(root, 3);
    }

    private static TreeItem<String> jsonItem(String name, JsonNode json) {
        if (json.isObject() || json.isArray()) {
            TreeItem<String> item = new TreeItem<>(name + (json.isArray() ? " [" + json.size() + "]" : ""));
            if (json.isObject()) {
                for (Map.Entry<String, JsonNode> field : json.properties()) {
                    item.getChildren().add(jsonItem(field.getKey(), field.getValue()));
                }
            } else {
                for (int i = 0; i < json.size(); i++) {
                    item.getChildren().add(jsonItem("[" + i + "]", json.get(i)));
                }
            }
            return item;
        }
        return new TreeItem<>(name + ": " + json.toString());
    }

    private static <T> void expandAll(TreeItem<T> item, int depth) {
        item.setExpanded(depth > 0);
        for (TreeItem<T> child : item.getChildren()) {
            expandAll(child, depth - 1);
        }
    }

    private void fetchState(int position) {
        NodeId node = model.nodes().get(model.laneOf(position));
        stateStatus.setText("replaying to position " + position + "…");
        states.request(position).whenComplete((result, failure) -> Platform.runLater(() -> {
            if (selected != position) {
                return; // the selection moved on
            }
            if (failure != null) {
                stateStatus.setText("cannot show the state: " + failure.getMessage());
                stateTree.setRoot(null);
                return;
            }
            result.ifPresent(state -> showState(node, state));
        }));
    }

    private void showState(NodeId node, StateService.NodeState state) {
        if (state.problem().isPresent()) {
            stateStatus.setText(state.problem().get());
            stateTree.setRoot(null);
            return;
        }
        if (state.after() == null) {
            stateStatus.setText(node + " is not running after position " + state.position());
            stateTree.setRoot(null);
            return;
        }
        String where = state.handler() == state.position() ? "" : " (its handler began at position " + state.handler() + ")";
        String compared = state.previous() < 0 ? "its first handler call"
                : "changes since its handler call at position " + state.previous() + " highlighted";
        String how = state.fromCache() ? "from memory" : String.format(Locale.ROOT, "replayed to position %d in %.2f s",
                state.replayedTo(), state.took().toNanos() / 1e9);
        stateStatus.setText(node + " after position " + state.position() + where + "; " + compared + "; " + how);
        ObjectTree.Diff diff = state.after().diff(state.before());
        TreeItem<ObjectTree.Diff> root = diffItem(diff);
        stateTree.setRoot(root);
        expandChanged(root, 2);
    }

    private void fetchTables(int position) {
        if (tables.isEmpty()) {
            tablesTree.setRoot(null);
            return;
        }
        NodeId node = model.nodes().get(model.laneOf(position));
        int handler = states.handlerOf(position);
        int previous = handler < 0 || model.previousOnLane(handler) < 0 ? -1 : states.handlerOf(model.previousOnLane(handler));
        tablesStatus.setText("reading the check database…");
        tableWorker.execute(() -> {
            String problem = null;
            ObjectTree.Diff diff = null;
            try {
                ObjectTree now = tables.get().rowsAt(node, position);
                ObjectTree before = previous >= 0 ? tables.get().rowsAt(node, previous) : null;
                diff = now.diff(before);
            } catch (RuntimeException e) {
                problem = e.getMessage();
            }
            String failure = problem;
            ObjectTree.Diff result = diff;
            Platform.runLater(() -> {
                if (selected != position) {
                    return;
                }
                if (failure != null) {
                    tablesStatus.setText("cannot read the checked tables: " + failure);
                    tablesTree.setRoot(null);
                    return;
                }
                tablesStatus.setText(node + "'s rows after position " + position
                        + (previous >= 0 ? "; changes since position " + previous + " highlighted" : ""));
                TreeItem<ObjectTree.Diff> root = diffItem(result);
                tablesTree.setRoot(root);
                expandChanged(root, 3);
                root.setExpanded(true);
            });
        });
    }

    private static TreeItem<ObjectTree.Diff> diffItem(ObjectTree.Diff diff) {
        TreeItem<ObjectTree.Diff> item = new TreeItem<>(diff);
        for (ObjectTree.Diff child : diff.children()) {
            item.getChildren().add(diffItem(child));
        }
        return item;
    }

    /** Expands the first levels, and everything on the way to a change. */
    private static void expandChanged(TreeItem<ObjectTree.Diff> item, int depth) {
        item.setExpanded(depth > 0 || item.getValue().changedBelow());
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            expandChanged(child, depth - 1);
        }
    }

    /** The state tree's items, depth first, as text (for tests). */
    List<String> stateLines() {
        List<String> lines = new ArrayList<>();
        if (stateTree.getRoot() != null) {
            lines(stateTree.getRoot(), "", lines);
        }
        return lines;
    }

    /** The checked tables' items, depth first, as text (for tests). */
    List<String> tableLines() {
        List<String> lines = new ArrayList<>();
        if (tablesTree.getRoot() != null) {
            lines(tablesTree.getRoot(), "", lines);
        }
        return lines;
    }

    String stateStatusText() {
        return stateStatus.getText();
    }

    String tablesStatusText() {
        return tablesStatus.getText();
    }

    String eventHeaderText() {
        return eventHeader.getText();
    }

    private static void lines(TreeItem<ObjectTree.Diff> item, String indent, List<String> out) {
        out.add(indent + DiffCell.text(item.getValue()));
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            lines(child, indent + "  ", out);
        }
    }

    /** Shows a member as {@code name = value}, a change as {@code name = old → new}, coloured by kind. */
    private static final class DiffCell extends TreeCell<ObjectTree.Diff> {
        static String text(ObjectTree.Diff diff) {
            String value = diff.change() == ObjectTree.Change.CHANGED ? diff.before() + " → " + diff.text() : diff.text();
            String mark = switch (diff.change()) {
                case ADDED -> "+ ";
                case REMOVED -> "− ";
                default -> "";
            };
            return mark + diff.name() + " = " + value;
        }

        @Override
        protected void updateItem(ObjectTree.Diff diff, boolean empty) {
            super.updateItem(diff, empty);
            if (empty || diff == null) {
                setText(null);
                setStyle("");
                return;
            }
            setText(text(diff));
            setStyle(switch (diff.change()) {
                case CHANGED -> "-fx-text-fill: #b35900; -fx-font-weight: bold";
                case ADDED -> "-fx-text-fill: #1a7f37; -fx-font-weight: bold";
                case REMOVED -> "-fx-text-fill: #888888";
                case SAME -> diff.changedBelow() ? "-fx-text-fill: #b35900" : "";
            });
        }
    }
}
