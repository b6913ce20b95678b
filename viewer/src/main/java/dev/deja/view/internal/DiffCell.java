package dev.deja.view.internal;

import javafx.scene.control.TreeCell;

/**
 * Shows a member as {@code name = value}, a change as {@code name = old → new}, a set's element by itself, all
 * coloured by kind of change: changed amber, added green, removed red and struck through.
 */
final class DiffCell extends TreeCell<ObjectTree.Diff> {
    /** The line a member shows as (see {@link ObjectTree.Diff#line()}). */
    static String text(ObjectTree.Diff diff) {
        return diff.line();
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
        // Removed members in red, not grey: grey reads as disabled.
        setStyle(switch (diff.change()) {
            case CHANGED -> "-fx-text-fill: #b35900; -fx-font-weight: bold";
            case ADDED -> "-fx-text-fill: #1a7f37; -fx-font-weight: bold";
            case REMOVED -> "-fx-text-fill: #c62828";
            case SAME -> diff.changedBelow() ? "-fx-text-fill: #b35900" : "";
        });
    }
}
