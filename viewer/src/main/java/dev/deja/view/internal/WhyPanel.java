package dev.deja.view.internal;

import dev.deja.check.NodeDeaths;
import dev.deja.check.Violation;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.H2StateHistory;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import dev.deja.view.WitnessHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;

/**
 * Why the selected finding happened, as {@code deja why} prints it: the events that changed what its predicate
 * read about its witness, followed back to the messages' senders, ending with the finding (see
 * {@link WitnessHistory}). Shown over the window; a click on an event selects it in the graph.
 *
 * <p>Reads the stored state history of the trace's latest check, which must cover the whole trace; says in one
 * line why not otherwise. The history is read on a worker thread. Call on the JavaFX thread.
 */
final class WhyPanel implements AutoCloseable {
    private final TraceModel model;
    private final Path trace;
    private final IntConsumer select;
    private final Label title = new Label();
    private final Label note = new Label();
    private final ListView<WitnessHistory.Cause> causes = new ListView<>();
    private final VBox pane;
    private final AtomicInteger latest = new AtomicInteger();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "deja-view-why");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param trace  the trace directory, whose {@code check/} database holds the history
     * @param select selects a position in the window
     */
    WhyPanel(TraceModel model, Path trace, IntConsumer select) {
        this.model = model;
        this.trace = trace;
        this.select = select;
        title.setId("why-title");
        title.setStyle("-fx-font-weight: bold");
        title.setWrapText(true);
        title.setMinHeight(Region.USE_PREF_SIZE);
        note.setId("why-note");
        note.setWrapText(true);
        note.setMinHeight(Region.USE_PREF_SIZE);
        causes.setId("why-causes");
        causes.setCellFactory(view -> new ListCell<>() {
            @Override
            protected void updateItem(WitnessHistory.Cause cause, boolean empty) {
                super.updateItem(cause, empty);
                setText(empty || cause == null ? null : line(cause));
            }
        });
        causes.getSelectionModel().selectedItemProperty().addListener((o, before, cause) -> {
            if (cause != null) {
                select.accept((int) cause.event().position());
            }
        });
        Button close = new Button("Close");
        close.setId("why-close");
        close.setFocusTraversable(false);
        close.setOnAction(event -> hide());
        HBox top = new HBox(8, title, new Region(), close);
        HBox.setHgrow(top.getChildren().get(1), Priority.ALWAYS);
        top.setAlignment(Pos.CENTER_LEFT);
        pane = new VBox(6, top, note, causes);
        VBox.setVgrow(causes, Priority.ALWAYS);
        pane.setPadding(new Insets(10));
        pane.setMaxSize(900, 360);
        pane.setStyle("-fx-background-color: -fx-background; -fx-border-color: #888; -fx-border-width: 1;"
                + " -fx-effect: dropshadow(gaussian, rgba(0,0,0,0.3), 10, 0, 0, 2)");
        pane.setVisible(false);
        StackPane.setAlignment(pane, Pos.BOTTOM_RIGHT);
        StackPane.setMargin(pane, new Insets(12));
    }

    /** The panel, to lay over the window. */
    VBox pane() {
        return pane;
    }

    boolean isShown() {
        return pane.isVisible();
    }

    void hide() {
        pane.setVisible(false);
    }

    /** A cause as one line: position, Lamport clock, node, event, what it did. */
    static String line(WitnessHistory.Cause cause) {
        var event = cause.event();
        return String.format(Locale.ROOT, "%6d  L%-5d %-4s %-18s %s", event.position(), event.lamport(),
                event.node().value(), event.type() + event.messageType().map(t -> " " + t).orElse(""), cause.reason());
    }

    /** Shows the panel and explains {@code finding} (numbered {@code number} as in the findings list). */
    void explain(Violation finding, int number) {
        int ticket = latest.incrementAndGet();
        title.setText(String.format(Locale.ROOT, "Why finding %d: %s %s, %s, at position %d (node %s)", number,
                finding.predicate(), finding.statusText(), WitnessHistory.describeWitness(finding),
                finding.event().position(), finding.event().node()));
        note.setText("reading the stored history of the latest check…");
        causes.getItems().clear();
        pane.setVisible(true);
        worker.execute(() -> {
            String problem = null;
            List<WitnessHistory.Cause> found = List.of();
            try {
                if (!Files.isRegularFile(trace.resolve(H2StateHistory.DIRECTORY).resolve(H2StateHistory.NAME + ".mv.db"))) {
                    problem = trace + " has no stored check: run 'deja check " + trace + " SCRIPT' first";
                } else {
                    try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
                        if (!history.coversWholeTrace()) {
                            problem = "the stored history of " + trace + " does not cover the whole trace (the last check"
                                    + " stopped early); run 'deja check' on it without --to or --limit";
                        } else {
                            found = WitnessHistory.of(model, history, finding, NodeDeaths.of(Trace.open(trace)));
                        }
                    }
                }
            } catch (CheckDatabaseException | IllegalArgumentException e) {
                problem = e.getMessage();
            }
            String shownProblem = problem;
            List<WitnessHistory.Cause> shown = found;
            Platform.runLater(() -> {
                if (latest.get() != ticket) {
                    return;
                }
                if (shownProblem != null) {
                    note.setText(shownProblem);
                    return;
                }
                note.setText((finding.reads().isEmpty() ? "" : "the predicate read: " + String.join(", ", finding.reads())
                        + "; ") + shown.size() + " event(s) lead to this finding (click one to select it; deja why "
                        + trace + " --finding " + number + " prints them)");
                causes.getItems().setAll(shown);
            });
        });
    }

    /** Says why nothing can be explained (no finding selected). */
    void cannotExplain(String why) {
        latest.incrementAndGet();
        title.setText("Why");
        note.setText(why);
        causes.getItems().clear();
        pane.setVisible(true);
    }

    // ---- for tests ----

    String titleText() {
        return title.getText();
    }

    String noteText() {
        return note.getText();
    }

    List<String> lines() {
        return causes.getItems().stream().map(WhyPanel::line).toList();
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
