package dev.deja.view.internal;

import dev.deja.check.Violation;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;

/** The viewer's colours and font, in one place so the picture and its legend agree. */
final class Palette {
    /** Message type colours, by type index; red is left out because it means a violation. */
    private static final Color[] MESSAGE = {
            Color.web("#1f77b4"), Color.web("#ff7f0e"), Color.web("#2ca02c"), Color.web("#9467bd"),
            Color.web("#8c564b"), Color.web("#e377c2"), Color.web("#17becf"), Color.web("#bcbd22"),
            Color.web("#393b79"), Color.web("#637939"), Color.web("#7b4173"), Color.web("#7f7f7f")};

    static final Color BACKGROUND = Color.WHITE;
    static final Color TEXT = Color.web("#222222");
    static final Color FAINT_TEXT = Color.web("#777777");
    static final Color GRID = Color.web("#ececec");
    static final Color LANE = Color.web("#555555");
    static final Color START = Color.web("#333333");
    static final Color TIMER = Color.web("#4a6f8a");
    static final Color OBSERVATION = Color.web("#b5b5b5");
    static final Color CRASH = Color.web("#d62728");
    static final Color OUTSIDE = Color.web("#999999");
    static final Color SELECTION = Color.web("#000000");
    /** Under the selected message's own colour, a wide band of this: the message stands out end to end. */
    static final Color SELECTED_MESSAGE = Color.web("#ffd23f");
    /** Behind the lanes, the selected event's causes (its past) and effects (its future). */
    static final Color CAUSES = Color.web("#d8e7f7");
    static final Color EFFECTS = Color.web("#fbe3cc");
    static final Color VIOLATION_RING = Color.web("#d62728");
    static final Color STRIPE_BACKGROUND = Color.web("#f4f4f4");
    static final Color VIOLATION_DARK = Color.web("#b2182b");
    static final Color VIOLATION_LIGHT = Color.web("#f4a6a6");
    static final Color FAILURE_DARK = Color.web("#d9730d");
    static final Color FAILURE_LIGHT = Color.web("#fdd49e");

    /** The family every label uses; installed on the build machines, so golden images agree. */
    static final String FONT_FAMILY = "DejaVu Sans";
    static final Font FONT = Font.font(FONT_FAMILY, 11);
    static final Font SMALL_FONT = Font.font(FONT_FAMILY, 9);

    private Palette() {
    }

    /** The colour of message type {@code index} (see {@code TraceModel.messageTypes()}). */
    static Color message(int index) {
        return index < 0 ? OUTSIDE : MESSAGE[index % MESSAGE.length];
    }

    /** The stripe colour of a violation: red for a violated predicate, orange for one that failed to run. */
    static Color violation(Violation violation, boolean dark) {
        boolean failure = violation.status() != Violation.Status.VIOLATED;
        if (failure) {
            return dark ? FAILURE_DARK : FAILURE_LIGHT;
        }
        return dark ? VIOLATION_DARK : VIOLATION_LIGHT;
    }
}
