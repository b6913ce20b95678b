package dev.deja.view.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javafx.geometry.Insets;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.VBox;

/**
 * The window's keys in one table: what each does, how it is matched, and its line in the in-window help, so
 * that the help lists exactly the keys that work. Call on the JavaFX thread.
 */
final class KeyBindings {
    /** One binding: the keys as the help shows them, what they do, which events they take. */
    record Binding(String keys, String description, Predicate<KeyEvent> matches, Runnable action) {
    }

    private final List<Binding> bindings = new ArrayList<>();

    /**
     * Adds a binding; the help lists bindings in the order they were added. A binding with empty keys is the
     * second half of a pair whose line the binding before it wrote ({@code ← / →}).
     */
    KeyBindings bind(String keys, String description, Predicate<KeyEvent> matches, Runnable action) {
        bindings.add(new Binding(keys, description, matches, action));
        return this;
    }

    /** A key without Shift, Ctrl, Alt or Meta. */
    static Predicate<KeyEvent> plain(KeyCode... codes) {
        return event -> !event.isShiftDown() && !event.isShortcutDown() && !event.isControlDown() && !event.isAltDown()
                && List.of(codes).contains(event.getCode());
    }

    /** A key with Shift (and nothing else). */
    static Predicate<KeyEvent> shift(KeyCode code) {
        return event -> event.isShiftDown() && !event.isControlDown() && !event.isAltDown() && event.getCode() == code;
    }

    /** A key with Ctrl (or the platform's shortcut key). */
    static Predicate<KeyEvent> control(KeyCode code) {
        return event -> (event.isControlDown() || event.isShortcutDown()) && event.getCode() == code;
    }

    /** A typed character whatever the keyboard layout ({@code ?}, {@code +}), from KEY_PRESSED's text. */
    static Predicate<KeyEvent> text(String character, KeyCode... codes) {
        return event -> character.equals(event.getText()) || List.of(codes).contains(event.getCode());
    }

    /** Runs the first binding that takes {@code event}; returns whether one did. */
    boolean handle(KeyEvent event) {
        for (Binding binding : bindings) {
            if (binding.matches().test(event)) {
                binding.action().run();
                return true;
            }
        }
        return false;
    }

    List<Binding> bindings() {
        return List.copyOf(bindings);
    }

    /** The help: one row a binding, keys on the left. */
    VBox helpPane() {
        GridPane grid = new GridPane();
        grid.setHgap(18);
        grid.setVgap(3);
        int row = 0;
        for (Binding binding : bindings) {
            if (binding.keys().isEmpty()) {
                continue; // the second half of a pair listed on the line before
            }
            Label keys = new Label(binding.keys());
            keys.setStyle("-fx-font-weight: bold");
            grid.add(keys, 0, row);
            grid.add(new Label(binding.description()), 1, row);
            row++;
        }
        Label title = new Label("Keys (? or Escape closes this help)");
        title.setStyle("-fx-font-weight: bold; -fx-font-size: 1.2em");
        Label mouse = new Label("Mouse: click an event or a finding in the stripe to select it; drag or scroll to pan; "
                + "Ctrl+scroll zooms at the pointer.");
        VBox pane = new VBox(10, title, grid, mouse);
        pane.setPadding(new Insets(16));
        pane.setMaxSize(VBox.USE_PREF_SIZE, VBox.USE_PREF_SIZE);
        pane.setStyle("-fx-background-color: rgba(255,255,255,0.97); -fx-border-color: #888; -fx-border-width: 1;");
        pane.setId("help");
        return pane;
    }
}
