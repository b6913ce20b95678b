package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Trace;
import dev.deja.view.ComparisonSettings;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceComparison;
import dev.deja.view.TraceComparison.Side;
import dev.deja.view.TraceModel;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.Scene;
import javafx.scene.canvas.Canvas;
import javafx.scene.control.Label;
import javafx.scene.control.Separator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TextField;
import javafx.scene.control.ToolBar;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.Pane;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.stage.Stage;
import javafx.stage.WindowEvent;

/**
 * A window on two compared runs ({@code deja view A --compare B}): run A's graph above run B's, the entries they
 * share faded, and under them every node's state in both runs at the selected step, the members that differ
 * highlighted ({@code name = value in A → value in B} in amber, members only in B green, only in A red).
 *
 * <p>Time travel moves both runs together: selecting an entry of one run selects the entry at the same index of
 * the same node's log in the other (its counterpart on the common prefix; see {@link TraceComparison#aligned}), and
 * the states are every node's after as many of its own entries as the selected run had recorded up to the
 * selection ({@link TraceComparison#cut}). Both graphs share one zoom; each keeps its selection in view.
 *
 * <p>Every method runs on the JavaFX thread; states are replayed on a worker thread and shown when they arrive,
 * unless the selection moved on meanwhile.
 */
public final class CompareWindow {
    private static final double DEFAULT_PIXELS_PER_EVENT = 12;
    private static final double MAX_PIXELS_PER_EVENT = 80;
    private static final int CACHED_STEPS = 16;

    private final TraceComparison comparison;
    private final ComparisonSettings settings;
    private final Stage stage;
    private final Map<Side, Graph> graphs = new EnumMap<>(Side.class);
    private final TreeView<ObjectTree.Diff> stateTree = new TreeView<>();
    private final Label stateStatus = new Label();
    private final Label status = new Label();
    private final TextField jumpField = new TextField();
    private final KeyBindings keys = new KeyBindings();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "deja-compare-state");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger latestRequest = new AtomicInteger();
    /** Every node's rendered state at a cut, per run; touched by the worker only. */
    private final Map<Side, Map<String, Map<NodeId, ObjectTree>>> rendered = new EnumMap<>(Side.class);
    private double pixelsPerEvent = DEFAULT_PIXELS_PER_EVENT;
    private ComparedStates shownStates;

    /** One run's graph: its canvas, viewport and selection. */
    private final class Graph {
        final Side side;
        final TraceModel model;
        final ArcIndex arcs;
        final java.util.BitSet common;
        final Canvas canvas = new Canvas();
        int selected;
        double firstPosition;
        GraphLayout layout;

        Graph(Side side) {
            this.side = side;
            this.model = comparison.model(side);
            this.arcs = ArcIndex.of(model);
            this.common = comparison.common(side);
            canvas.setId("graph-" + side.name().toLowerCase(Locale.ROOT));
            canvas.widthProperty().addListener((o, a, b) -> repaint());
            canvas.heightProperty().addListener((o, a, b) -> repaint());
            canvas.addEventHandler(MouseEvent.MOUSE_CLICKED, event -> click(this, event.getX(), event.getY()));
            canvas.addEventHandler(ScrollEvent.SCROLL, event -> {
                if (event.isControlDown()) {
                    zoom(event.getDeltaY() > 0 ? 1.25 : 0.8);
                } else {
                    firstPosition -= event.getDeltaY() / pixelsPerEvent;
                    repaint();
                }
                event.consume();
            });
        }

        GraphFrame frame() {
            PictureSettings picture = PictureSettings.builder(model.size()).selected(selected, PictureSettings.Highlight.MARK)
                    .build();
            String first = comparison.firstDifference(side).isPresent()
                    ? "first difference at " + comparison.firstDifference(side).getAsInt() : "no difference";
            String title = String.format(Locale.ROOT, "%s: %s   %d entries, common prefix faded, %s; selected %d%s",
                    side, Comparisons.shortName(model), model.size(), first, selected,
                    comparison.isCommon(side, selected) ? " (common)" : "");
            return PictureRenderer.frame(model, arcs, picture, true).withFaded(common, title);
        }

        double graphWidth() {
            return Math.max(50, canvas.getWidth() - (layout == null ? 60 : layout.leftMargin) - GraphLayout.RIGHT_PAD);
        }

        void ensureVisible() {
            double visible = graphWidth() / pixelsPerEvent;
            if (selected < firstPosition + 1 || selected > firstPosition + visible - 2) {
                firstPosition = selected - visible / 2;
            }
        }

        void repaint() {
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
        }
    }

    private CompareWindow(TraceComparison comparison, ComparisonSettings settings, Stage stage) {
        this.comparison = comparison;
        this.settings = settings;
        this.stage = stage;
        for (Side side : Side.values()) {
            graphs.put(side, new Graph(side));
            rendered.put(side, new LinkedHashMap<>(32, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Map<NodeId, ObjectTree>> eldest) {
                    return size() > CACHED_STEPS;
                }
            });
        }
        bindKeys();
        build();
    }

    /** Opens a window on the comparison at the settings' step; call on the JavaFX thread. */
    public static CompareWindow show(TraceComparison comparison, ComparisonSettings settings) {
        Stage stage = new Stage();
        CompareWindow window = new CompareWindow(comparison, settings, stage);
        stage.show();
        window.select(Side.A, settings.stepA(comparison));
        return window;
    }

    /** The stage, to wait for it to close. */
    public Stage stage() {
        return stage;
    }

    private void build() {
        SplitPane split = new SplitPane();
        split.setOrientation(Orientation.VERTICAL);
        for (Side side : Side.values()) {
            Canvas canvas = graphs.get(side).canvas;
            Pane pane = new Pane(canvas);
            pane.setMinSize(200, 100);
            canvas.widthProperty().bind(pane.widthProperty());
            canvas.heightProperty().bind(pane.heightProperty());
            split.getItems().add(pane);
        }
        stateTree.setId("compare-state-tree");
        stateTree.setShowRoot(false);
        stateTree.setCellFactory(view -> new DiffCell());
        stateTree.setFixedCellSize(Math.round(Font.getDefault().getSize() * 1.7));
        stateStatus.setId("compare-state-status");
        stateStatus.setWrapText(true);
        Label title = new Label("Every node's state at the selected step: A → B (amber: differs, green: only in B,"
                + " red: only in A)");
        title.setFont(Font.font(Font.getDefault().getFamily(), FontWeight.BOLD, Font.getDefault().getSize()));
        javafx.scene.control.TextArea parting = new javafx.scene.control.TextArea(Comparisons.summary(comparison));
        parting.setId("compare-summary");
        parting.setEditable(false);
        parting.setFont(Font.font("DejaVu Sans Mono", Font.getDefault().getSize()));
        javafx.scene.control.TitledPane where = new javafx.scene.control.TitledPane("Where the runs part", parting);
        where.setExpanded(false);
        where.setAnimated(false);
        VBox state = new VBox(4, title, stateStatus, stateTree, where);
        VBox.setVgrow(stateTree, Priority.ALWAYS);
        state.setPadding(new Insets(4, 6, 4, 6));
        split.getItems().add(state);
        split.setDividerPositions(0.3, 0.6);
        BorderPane root = new BorderPane(split);
        root.setTop(toolBar());
        root.setBottom(status);
        status.setId("compare-status");
        BorderPane.setMargin(status, new Insets(2, 6, 2, 6));
        Scene scene = new Scene(root, 1400, 900);
        scene.addEventFilter(KeyEvent.KEY_PRESSED, event -> {
            if (!(event.getTarget() instanceof TextField) && keys.handle(event)) {
                event.consume();
            }
        });
        stage.setScene(scene);
        stage.setTitle("deja view " + comparison.a().name() + " --compare " + comparison.b().name());
        stage.addEventHandler(WindowEvent.WINDOW_HIDDEN, event -> worker.shutdownNow());
    }

    private ToolBar toolBar() {
        jumpField.setId("compare-jump");
        jumpField.setPromptText("A position");
        jumpField.setPrefColumnCount(6);
        jumpField.setOnAction(event -> jump());
        return new ToolBar(ViewerWindow.button("compare-previous-node", "◀ node", "Previous event of the node in A (Left)", () -> stepNode(-1)),
                ViewerWindow.button("compare-next-node", "node ▶", "Next event of the node in A (Right)", () -> stepNode(1)),
                ViewerWindow.button("compare-previous", "◀ step", "Previous entry of A (Shift+Left)", () -> step(-1)),
                ViewerWindow.button("compare-next", "step ▶", "Next entry of A (Shift+Right)", () -> step(1)),
                ViewerWindow.button("compare-first-difference", "first difference", "A's first entry outside the common prefix (D)",
                        this::firstDifference),
                new Separator(), jumpField, ViewerWindow.button("compare-go", "Go", "Jump to this position of A", this::jump),
                new Separator(), ViewerWindow.button("compare-zoom-out", "−", "Zoom out (-)", () -> zoom(1 / 1.5)),
                ViewerWindow.button("compare-zoom-in", "+", "Zoom in (+)", () -> zoom(1.5)));
    }

    private void bindKeys() {
        keys.bind("← / →", "previous / next event of the selected node in A", KeyBindings.plain(KeyCode.LEFT), () -> stepNode(-1))
                .bind("", "", KeyBindings.plain(KeyCode.RIGHT), () -> stepNode(1))
                .bind("Shift+← / Shift+→", "previous / next entry of A", KeyBindings.shift(KeyCode.LEFT), () -> step(-1))
                .bind("", "", KeyBindings.shift(KeyCode.RIGHT), () -> step(1))
                .bind("D", "A's first difference", KeyBindings.plain(KeyCode.D), this::firstDifference)
                .bind("Home / End", "first / last entry of A", KeyBindings.plain(KeyCode.HOME), () -> select(Side.A, 0))
                .bind("", "", KeyBindings.plain(KeyCode.END), () -> select(Side.A, comparison.a().size() - 1))
                .bind("+ / −", "zoom in / out", KeyBindings.text("+", KeyCode.PLUS, KeyCode.EQUALS, KeyCode.ADD), () -> zoom(1.5))
                .bind("", "", KeyBindings.text("-", KeyCode.MINUS, KeyCode.SUBTRACT), () -> zoom(1 / 1.5))
                .bind("Escape / Ctrl+W", "close the window", event -> KeyBindings.plain(KeyCode.ESCAPE).test(event)
                        || KeyBindings.control(KeyCode.W).test(event) || KeyBindings.control(KeyCode.Q).test(event), stage::close);
    }

    // ---- time travel ----

    /** Selects {@code position} of {@code side}'s run and the aligned entry of the other run. */
    public void select(Side side, int position) {
        TraceModel model = comparison.model(side);
        if (position < 0 || position >= model.size()) {
            return;
        }
        Graph graph = graphs.get(side);
        Graph other = graphs.get(side.other());
        graph.selected = position;
        int aligned = comparison.aligned(side, position);
        if (aligned >= 0) {
            other.selected = aligned;
        }
        jumpField.setText(Integer.toString(graphs.get(Side.A).selected));
        for (Graph g : graphs.values()) {
            g.ensureVisible();
            g.repaint();
        }
        status.setText(statusText());
        fetchStates(side, position);
    }

    /** Steps A's selection along the whole trace. */
    public void step(int direction) {
        select(Side.A, graphs.get(Side.A).selected + direction);
    }

    /** Steps A's selection along its node. */
    public void stepNode(int direction) {
        TraceModel a = comparison.a();
        int at = graphs.get(Side.A).selected;
        int next = direction > 0 ? a.nextOnLane(at) : a.previousOnLane(at);
        if (next >= 0) {
            select(Side.A, next);
        }
    }

    /** Selects A's first entry outside the common prefix. */
    public void firstDifference() {
        if (comparison.firstDifference(Side.A).isPresent()) {
            select(Side.A, comparison.firstDifference(Side.A).getAsInt());
        } else {
            status.setText("A has no entry outside the common prefix");
        }
    }

    private void jump() {
        String text = jumpField.getText().strip();
        try {
            int position = Integer.parseInt(text);
            if (position < 0 || position >= comparison.a().size()) {
                status.setText("position " + text + " is outside A (0.." + (comparison.a().size() - 1) + ")");
                return;
            }
            select(Side.A, position);
        } catch (NumberFormatException e) {
            status.setText("'" + text + "' is not a position");
        }
    }

    private void zoom(double factor) {
        pixelsPerEvent = Math.max(0.05, Math.min(MAX_PIXELS_PER_EVENT, pixelsPerEvent * factor));
        for (Graph graph : graphs.values()) {
            graph.firstPosition = graph.selected - graph.graphWidth() / pixelsPerEvent / 2;
            graph.repaint();
        }
    }

    /** Selects the entry nearest to (x, y) on the lane under it, in the graph clicked. */
    void click(Side side, double x, double y) {
        click(graphs.get(side), x, y);
    }

    private void click(Graph graph, double x, double y) {
        if (graph.layout == null) {
            return;
        }
        int lane = graph.layout.laneAt(y);
        if (lane < 0 || x < graph.layout.graphLeft()) {
            return;
        }
        TraceModel model = graph.model;
        int best = -1;
        double bestDistance = Math.max(8, pixelsPerEvent);
        for (int ordinal = 0; ordinal < model.laneSize(lane); ordinal++) {
            int position = model.positionOf(lane, ordinal);
            double distance = Math.abs(graph.layout.x(position) - x);
            if (distance <= bestDistance) {
                bestDistance = distance;
                best = position;
            }
        }
        if (best >= 0) {
            select(graph.side, best);
        }
    }

    private String statusText() {
        int a = graphs.get(Side.A).selected;
        int b = graphs.get(Side.B).selected;
        boolean common = comparison.isCommon(Side.A, a);
        return String.format(Locale.ROOT, "A %d, B %d: %s   common prefix %d entries", a, b,
                common ? "the same entry in both runs" : "outside the common prefix (B: the same node's entry at the"
                        + " same index)", comparison.commonSize());
    }

    // ---- states ----

    private void fetchStates(Side side, int position) {
        int ticket = latestRequest.incrementAndGet();
        stateStatus.setText("replaying both runs to " + side + " " + position + "…");
        worker.execute(() -> {
            if (latestRequest.get() != ticket) {
                return;
            }
            try {
                long start = System.nanoTime();
                int[] cut = comparison.cut(side, position);
                List<NodeId> nodes = comparison.a().nodes();
                Map<NodeId, ObjectTree> a = statesOf(Side.A, settings.traceA(), cut);
                Map<NodeId, ObjectTree> b = statesOf(Side.B, settings.traceB(), cut);
                int other = comparison.aligned(side, position);
                ComparedStates states = ComparedStates.of(side == Side.A ? position : other,
                        side == Side.B ? position : other, nodes, a, b);
                double seconds = (System.nanoTime() - start) / 1e9;
                Platform.runLater(() -> {
                    if (latestRequest.get() == ticket) {
                        showStates(side, states, seconds);
                    }
                });
            } catch (RuntimeException e) {
                Platform.runLater(() -> {
                    if (latestRequest.get() == ticket) {
                        stateStatus.setText(String.valueOf(e.getMessage()));
                        stateTree.setRoot(null);
                    }
                });
            }
        });
    }

    /** Every node's state after as many of its entries as {@code cut} says, in one run (remembered for a while). */
    private Map<NodeId, ObjectTree> statesOf(Side side, Trace trace, int[] cut) {
        TraceModel model = comparison.model(side);
        int[] clipped = new int[cut.length];
        for (int lane = 0; lane < cut.length; lane++) {
            clipped[lane] = Math.min(cut[lane], model.laneSize(lane));
        }
        Map<String, Map<NodeId, ObjectTree>> cache = rendered.get(side);
        String key = java.util.Arrays.toString(clipped);
        Map<NodeId, ObjectTree> states = cache.get(key);
        if (states == null) {
            states = ComparedStates.statesAt(trace, model, clipped, settings.classLoader(), replayed -> { });
            cache.put(key, states);
        }
        return states;
    }

    private void showStates(Side side, ComparedStates states, double seconds) {
        shownStates = states;
        stateStatus.setText(String.format(Locale.ROOT, "each node after its entries up to %s position %d (A %d, B %d): "
                        + "%d of %d node(s) differ (%.2f s)", side, side == Side.A ? states.positionA()
                        : states.positionB(), states.positionA(), states.positionB(), states.differingNodes(),
                states.nodes().size(), seconds));
        TreeItem<ObjectTree.Diff> root = new TreeItem<>();
        for (ComparedStates.NodeStates node : states.nodes()) {
            TreeItem<ObjectTree.Diff> item = item(node.diff());
            expand(item, node.differs() ? 1 : 0);
            root.getChildren().add(item);
        }
        root.setExpanded(true);
        stateTree.setRoot(root);
    }

    private static TreeItem<ObjectTree.Diff> item(ObjectTree.Diff diff) {
        TreeItem<ObjectTree.Diff> item = new TreeItem<>(diff);
        for (ObjectTree.Diff child : diff.children()) {
            item.getChildren().add(item(child));
        }
        return item;
    }

    /** Expands the first levels of a differing node, and everything on the way to a difference. */
    private static void expand(TreeItem<ObjectTree.Diff> item, int depth) {
        item.setExpanded(depth > 0 || item.getValue().changedBelow());
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            expand(child, depth - 1);
        }
    }

    // ---- for tests ----

    int selected(Side side) {
        return graphs.get(side).selected;
    }

    ComparedStates shownStates() {
        return shownStates;
    }

    String stateStatusText() {
        return stateStatus.getText();
    }

    /** The state pane's lines as shown (expanded or not), one member a line, indented by depth. */
    List<String> stateLines() {
        List<String> lines = new ArrayList<>();
        if (stateTree.getRoot() != null) {
            for (TreeItem<ObjectTree.Diff> node : stateTree.getRoot().getChildren()) {
                lines(node, "", lines);
            }
        }
        return lines;
    }

    private static void lines(TreeItem<ObjectTree.Diff> item, String indent, List<String> out) {
        out.add(indent + DiffCell.text(item.getValue()));
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            lines(child, indent + "  ", out);
        }
    }

    String summaryText() {
        return ((javafx.scene.control.TextArea) stage.getScene().lookup("#compare-summary")).getText();
    }

    Canvas canvas(Side side) {
        return graphs.get(side).canvas;
    }

    GraphLayout layout(Side side) {
        return graphs.get(side).layout;
    }
}
