package dev.deja.view.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.node.NodeId;
import dev.deja.trace.EventJson;
import dev.deja.trace.EventKind;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.TraceEvent;
import dev.deja.view.TraceModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntSupplier;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.control.TreeItem;
import javafx.scene.control.TreeView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.text.Font;

/**
 * The selected event in detail, in three parts one above the other that the user can resize: the event and
 * its content; its node's state right after it (replayed), with the difference from the node's previous
 * handler call; and the rows of the checked tables then, of that node or of all nodes. The state part takes
 * most of the height by default and can be given nearly all of it (the S key); the tables can be given most
 * of it (R). The state and tables scroll to their first change.
 *
 * <p>Call on the JavaFX thread. State and rows are computed on worker threads and applied when they arrive,
 * unless the selection moved on meanwhile.
 */
final class DetailsPane implements AutoCloseable {
    /** Divider positions: event | state | tables, normal, with the state maximized, with the tables maximized. */
    private static final double[] NORMAL = {0.22, 0.78};
    private static final double[] STATE_MAXIMIZED = {0.04, 0.96};
    private static final double[] TABLES_MAXIMIZED = {0.04, 0.3};

    private final TraceModel model;
    private final StateService states;
    private final Optional<CheckedTables> tables;
    private final IntSupplier selection;
    private final MessageCodec codec = MessageCodec.defaultCodec();
    private final ExecutorService tableWorker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "deja-view-tables");
        thread.setDaemon(true);
        return thread;
    });

    private final Label eventHeader = new Label();
    private final TreeView<String> eventTree = new TreeView<>();
    private final Label stateStatus = new Label();
    private final TreeView<ObjectTree.Diff> stateTree = new TreeView<>();
    private final Label tablesStatus = new Label();
    private final TreeView<ObjectTree.Diff> tablesTree = new TreeView<>();
    private final ToggleButton allRows = new ToggleButton("all nodes");
    private final SplitPane split;
    private double[] dividers = NORMAL;
    private int shownPosition = -1;

    /**
     * @param tablesNote what the tables part says before the first selection (why there are no tables)
     * @param selection  the window's selected position now: answers for another position are dropped
     */
    DetailsPane(TraceModel model, StateService states, Optional<CheckedTables> tables, String tablesNote,
                IntSupplier selection) {
        this.model = model;
        this.states = states;
        this.tables = tables;
        this.selection = selection;
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
        // Cells of one known height: scrolling to a row then lands on the same pixel every time (with estimated
        // heights it depends on when the cells were laid out).
        double cellHeight = Math.round(Font.getDefault().getSize() * 1.7);
        for (TreeView<?> tree : List.of(eventTree, stateTree, tablesTree)) {
            tree.setFixedCellSize(cellHeight);
        }
        allRows.setId("tables-all");
        allRows.setTooltip(new Tooltip("Show every node's rows (for predicates over all nodes), not only the selected "
                + "node's (A)"));
        allRows.setFocusTraversable(false);
        allRows.setDisable(tables.isEmpty());
        allRows.selectedProperty().addListener((o, a, b) -> {
            if (shownPosition >= 0) {
                fetchTables(shownPosition);
            }
        });
        tablesStatus.setText(tablesNote);

        VBox event = part(eventTree, bold("Event"), eventHeader);
        VBox state = part(stateTree, bold("Node state after the event"), stateStatus);
        HBox tablesTitle = new HBox(8, bold("Checked tables"), allRows);
        VBox checked = part(tablesTree, tablesTitle, tablesStatus);
        split = new SplitPane(event, state, checked);
        split.setOrientation(Orientation.VERTICAL);
        split.setDividerPositions(NORMAL);
        split.setMinWidth(260);
        split.setId("details");
    }

    private static VBox part(Region grows, Region... above) {
        VBox box = new VBox(4);
        box.getChildren().addAll(above);
        box.getChildren().add(grows);
        VBox.setVgrow(grows, Priority.ALWAYS);
        box.setPadding(new Insets(4, 6, 4, 6));
        box.setMinHeight(24);
        return box;
    }

    private static Label bold(String text) {
        Label label = new Label(text);
        label.setStyle("-fx-font-weight: bold");
        return label;
    }

    SplitPane pane() {
        return split;
    }

    /** Gives the state part nearly all the height, or returns to the usual split. */
    void toggleStateMaximized() {
        toggle(STATE_MAXIMIZED);
    }

    /** Gives the checked tables most of the height, or returns to the usual split. */
    void toggleTablesMaximized() {
        toggle(TABLES_MAXIMIZED);
    }

    private void toggle(double[] maximized) {
        dividers = dividers == maximized ? NORMAL : maximized;
        split.setDividerPositions(dividers);
    }

    /** Shows every node's rows in the tables part, or only the selected node's. */
    void toggleAllRows() {
        if (!allRows.isDisabled()) {
            allRows.setSelected(!allRows.isSelected());
        }
    }

    /** Shows the event at {@code position} and starts fetching its state and rows. */
    void show(int position) {
        shownPosition = position;
        showEvent(position);
        fetchState(position);
        fetchTables(position);
    }

    @Override
    public void close() {
        states.close();
        tableWorker.shutdownNow();
    }

    private void showEvent(int position) {
        TraceEvent entry = model.entry(position);
        String head = String.format(Locale.ROOT, "position %d · %s · %s%nincarnation %d · seq %d · Lamport %d · node clock %d ms",
                position, entry.node(), EventText.describe(model, position), entry.incarnation(), entry.seq(),
                entry.lamport(), entry.atMillis());
        eventHeader.setText(head);
        JsonNode json = EventJson.toJson(entry, codec);
        if (model.type(position) == EventKind.SEND && model.counterpart(position) >= 0) {
            ((ObjectNode) json).set("message (as received)",
                    EventJson.toJson(model.entry(model.counterpart(position)), codec).get("message"));
        }
        TreeItem<String> root = jsonItem("event", json);
        eventTree.setRoot(root);
        expandAll(root, 3);
        eventTree.scrollTo(0); // a new event starts at its top, not at the previous one's scroll offset
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
            if (selection.getAsInt() != position) {
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
        scrollToFirstChange(stateTree);
    }

    /** Scrolls so that the first changed member is in view, a few lines from the top (else to the top). */
    private static void scrollToFirstChange(TreeView<ObjectTree.Diff> tree) {
        TreeItem<ObjectTree.Diff> first = firstChange(tree.getRoot());
        int row = first == null ? -1 : tree.getRow(first);
        tree.scrollTo(Math.max(0, row - 3));
    }

    private static TreeItem<ObjectTree.Diff> firstChange(TreeItem<ObjectTree.Diff> item) {
        if (item.getValue().change() != ObjectTree.Change.SAME) {
            return item;
        }
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            TreeItem<ObjectTree.Diff> found = firstChange(child);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private void fetchTables(int position) {
        if (tables.isEmpty()) {
            tablesTree.setRoot(null);
            return;
        }
        boolean all = allRows.isSelected();
        NodeId node = model.nodes().get(model.laneOf(position));
        int previous;
        if (all) {
            previous = position - 1;
        } else {
            int handler = states.handlerOf(position);
            previous = handler < 0 || model.previousOnLane(handler) < 0 ? -1 : states.handlerOf(model.previousOnLane(handler));
        }
        tablesStatus.setText("reading the check database…");
        tableWorker.execute(() -> {
            String problem = null;
            ObjectTree.Diff diff = null;
            try {
                ObjectTree now = all ? tables.get().allRowsAt(model.nodes(), position) : tables.get().rowsAt(node, position);
                ObjectTree before = previous < 0 ? null
                        : all ? tables.get().allRowsAt(model.nodes(), previous) : tables.get().rowsAt(node, previous);
                diff = now.diff(before);
            } catch (RuntimeException e) {
                problem = e.getMessage();
            }
            String failure = problem;
            ObjectTree.Diff result = diff;
            Platform.runLater(() -> {
                if (selection.getAsInt() != position || allRows.isSelected() != all) {
                    return;
                }
                if (failure != null) {
                    tablesStatus.setText("cannot read the checked tables: " + failure);
                    tablesTree.setRoot(null);
                    return;
                }
                tablesStatus.setText((all ? "every node's rows" : node + "'s rows") + " after position " + position
                        + (previous >= 0 ? "; changes since position " + previous + " highlighted" : ""));
                TreeItem<ObjectTree.Diff> root = diffItem(result);
                tablesTree.setRoot(root);
                expandChanged(root, all ? 2 : 3);
                root.setExpanded(true);
                scrollToFirstChange(tablesTree);
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

    // ---- for tests ----

    List<String> stateLines() {
        return lines(stateTree);
    }

    List<String> tableLines() {
        return lines(tablesTree);
    }

    private static List<String> lines(TreeView<ObjectTree.Diff> tree) {
        List<String> lines = new ArrayList<>();
        if (tree.getRoot() != null) {
            lines(tree.getRoot(), "", lines);
        }
        return lines;
    }

    private static void lines(TreeItem<ObjectTree.Diff> item, String indent, List<String> out) {
        out.add(indent + DiffCell.text(item.getValue()));
        for (TreeItem<ObjectTree.Diff> child : item.getChildren()) {
            lines(child, indent + "  ", out);
        }
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

    /** The tables part's share of the details' height, 0..1. */
    double tablesShare() {
        return 1 - split.getDividerPositions()[1];
    }

    /** The state part's share of the details' height, 0..1. */
    double stateShare() {
        double[] dividers = split.getDividerPositions();
        return dividers[1] - dividers[0];
    }
}
