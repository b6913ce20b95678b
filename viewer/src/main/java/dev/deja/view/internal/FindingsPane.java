package dev.deja.view.internal;

import dev.deja.check.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The findings of the loaded report: every one in a table (predicate, witness, position, node, status, aux
 * values), and under it the selected one in full (its kind, span, aux values at its start and end, threshold,
 * message). Selecting a row selects its event in the graph; selecting an event that is a finding selects its
 * row. Call on the JavaFX thread.
 */
final class FindingsPane {
    private final List<Violation> findings;
    private final Predicate<Violation> dark;
    private final TableView<Violation> table = new TableView<>();
    private final Label details = new Label();
    private final VBox pane;
    private final javafx.scene.layout.HBox header;
    private boolean updating;

    /**
     * @param findings the report's findings, in position order
     * @param dark     which findings pass the thresholds (drawn dark)
     * @param onSelect called with a finding's position when the user selects its row
     */
    FindingsPane(List<Violation> findings, Predicate<Violation> dark, IntConsumer onSelect) {
        this.findings = List.copyOf(findings);
        this.dark = dark;
        table.setId("findings");
        table.setPlaceholder(new Label("no findings: open a checked trace with --report FILE (deja check --json FILE)"));
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("#", 36, v -> Integer.toString(findings.indexOf(v) + 1)));
        table.getColumns().add(column("predicate", 150, Violation::predicate));
        table.getColumns().add(column("witness", 110, v -> FindingText.witness(v).orElse("")));
        table.getColumns().add(column("position", 70, v -> Long.toString(v.event().position())));
        table.getColumns().add(column("node", 50, v -> v.event().node().value()));
        table.getColumns().add(column("status", 110, v -> FindingText.status(v) + (dark.test(v) ? "" : " (below)")));
        table.getColumns().add(column("aux", 260, v -> FindingText.values(v.aux())));
        table.setItems(FXCollections.observableArrayList(this.findings));
        table.getSelectionModel().selectedItemProperty().addListener((o, a, chosen) -> {
            details.setText(chosen == null ? "" : describe(chosen));
            if (chosen != null && !updating) {
                onSelect.accept((int) chosen.event().position());
            }
        });
        details.setId("finding-details");
        details.setWrapText(true);
        details.setMinHeight(Region.USE_PREF_SIZE);
        Label title = new Label(findings.isEmpty() ? "Findings" : "Findings (" + findings.size() + ")");
        title.setStyle("-fx-font-weight: bold");
        VBox.setVgrow(table, Priority.ALWAYS);
        header = new javafx.scene.layout.HBox(8, title);
        header.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        pane = new VBox(4, header, table, details);
        pane.setMinHeight(60);
    }

    private static TableColumn<Violation, String> column(String name, double width, Function<Violation, String> value) {
        TableColumn<Violation, String> column = new TableColumn<>(name);
        column.setPrefWidth(width);
        column.setCellValueFactory(cell -> new ReadOnlyStringWrapper(value.apply(cell.getValue())));
        column.setSortable(false);
        return column;
    }

    VBox pane() {
        return pane;
    }

    /** Puts {@code control} in the header, after the title (the window's actions on the selected finding). */
    void addToHeader(javafx.scene.Node control) {
        header.getChildren().add(control);
    }

    /** The finding the user has selected, if any. */
    Optional<Violation> selected() {
        return Optional.ofNullable(table.getSelectionModel().getSelectedItem());
    }

    /** Selects (without moving the graph's selection) the first finding at {@code position}, or none. */
    void showFindingAt(int position) {
        Violation current = table.getSelectionModel().getSelectedItem();
        if (current != null && current.event().position() == position) {
            return;
        }
        updating = true;
        try {
            Optional<Violation> at = findings.stream().filter(v -> v.event().position() == position).findFirst();
            if (at.isPresent()) {
                table.getSelectionModel().select(at.get());
                table.scrollTo(at.get());
            } else {
                table.getSelectionModel().clearSelection();
            }
        } finally {
            updating = false;
        }
    }

    /**
     * The finding after ({@code direction} 1) or before (-1) {@code position} in position order, wrapping
     * neither way; at equal positions, the next row.
     */
    Optional<Violation> step(int position, int direction) {
        int current = selected().filter(v -> v.event().position() == position).map(findings::indexOf).orElse(-1);
        if (current >= 0) {
            int next = current + direction;
            return next >= 0 && next < findings.size() ? Optional.of(findings.get(next)) : Optional.empty();
        }
        Violation best = null;
        for (Violation v : findings) {
            long at = v.event().position();
            if (direction > 0 ? at > position && (best == null || at < best.event().position())
                    : at < position && (best == null || at >= best.event().position())) {
                best = v;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Selects {@code finding}'s row, which selects its event. */
    void choose(Violation finding) {
        table.getSelectionModel().select(finding);
        table.scrollTo(finding);
    }

    /** The rows as the table shows them, cells separated by " | " (for tests). */
    List<String> rows() {
        List<String> rows = new ArrayList<>();
        for (Violation v : table.getItems()) {
            List<String> cells = new ArrayList<>();
            for (TableColumn<Violation, ?> column : table.getColumns()) {
                cells.add(String.valueOf(column.getCellObservableValue(v).getValue()));
            }
            rows.add(String.join(" | ", cells));
        }
        return rows;
    }

    String detailsText() {
        return details.getText();
    }

    /** The selected finding in full. */
    private String describe(Violation v) {
        StringBuilder text = new StringBuilder();
        text.append(v.predicate()).append(" (").append(v.kind() == Violation.Kind.ALWAYS ? "@always" : "@eventually")
                .append("): ").append(FindingText.status(v));
        FindingText.witness(v).ifPresent(w -> text.append("\nwitness: ").append(w));
        text.append("\nat position ").append(v.event().position()).append(" on ").append(v.event().node())
                .append(" (Lamport ").append(v.event().lamport()).append(')');
        v.endPosition().ifPresent(end -> text.append(", span closed at position ").append(end));
        if (!v.aux().isEmpty()) {
            text.append("\naux: ").append(FindingText.values(v.aux()));
        }
        if (!v.auxAtEnd().isEmpty()) {
            text.append("\naux at ").append(v.endPosition().isPresent() ? "the span's last event" : "the end")
                    .append(": ").append(FindingText.values(v.auxAtEnd()));
        }
        if (!dark.test(v)) {
            text.append("\nbelow the --threshold: drawn light");
        }
        if (!v.message().isBlank()) {
            String message = v.message().strip();
            String[] lines = message.split("\n");
            text.append('\n').append(lines.length > 6 ? String.join("\n", List.of(lines).subList(lines.length - 6, lines.length))
                    : message);
        }
        return text.toString();
    }

    /** The texts of one finding as every part of the window shows them. */
    static final class FindingText {
        private FindingText() {
        }

        /** The finding's status in the words every command uses ({@link Violation#statusText()}). */
        static String status(Violation v) {
            return v.statusText();
        }

        /** The item of the predicate's result this finding is about, when the predicate returned items. */
        static Optional<String> witness(Violation v) {
            return Optional.ofNullable(v.witness()).map(String::valueOf);
        }

        /** {@code name=value, …} in declaration order. */
        static String values(Map<String, Object> values) {
            List<String> parts = new ArrayList<>();
            values.forEach((name, value) -> parts.add(name + "=" + value));
            return String.join(", ", parts);
        }
    }
}
