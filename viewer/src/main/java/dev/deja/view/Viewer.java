package dev.deja.view;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.view.internal.FxToolkit;
import dev.deja.view.internal.PictureRenderer;
import dev.deja.view.internal.ViewerWindow;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The viewer's entry points for the command line: pictures without a window, reports checked against their
 * trace, and the interactive window.
 */
public final class Viewer {
    private Viewer() {
    }

    /** Whether a desktop display is available for a window. */
    public static boolean displayAvailable() {
        return FxToolkit.displayAvailable();
    }

    /**
     * Starts the desktop display toolkit for a window, before the trace is read, so that a machine without one
     * is told at once.
     *
     * @throws DisplayUnavailableException with a one-line message naming what to install
     */
    public static void startDisplay() {
        FxToolkit.start(FxToolkit.Mode.DISPLAY);
    }

    /** What a window needs on Linux (an X display and GTK 3, with the package to install), as one phrase. */
    public static String windowRequirement() {
        return DisplayUnavailableException.REQUIREMENT;
    }

    /**
     * Renders the graph {@code settings} describe to a PNG file, on JavaFX's headless platform when the toolkit
     * is not running yet (no display needed). The same model and settings give the same bytes.
     */
    public static void writePng(TraceModel model, PictureSettings settings, Path file) {
        FxToolkit.start(FxToolkit.Mode.HEADLESS);
        PictureRenderer.writePng(model, settings, file);
    }

    /**
     * Reads a check report and makes sure it belongs to {@code model}'s trace: every violation's position must
     * exist and hold the event the report names (same node and Lamport clock). A report of another trace is
     * refused naming the report, the first violation that does not fit and what the trace has there.
     */
    public static List<Violation> violationsOf(TraceModel model, Path report) {
        CheckReport read = CheckReport.read(report);
        for (Violation violation : read.violations()) {
            long position = violation.event().position();
            String names = "violation of " + violation.predicate() + " at position " + position + " (node "
                    + violation.event().node() + ", Lamport " + violation.event().lamport() + ")";
            if (position < 0 || position >= model.size()) {
                throw new IllegalArgumentException(report + " does not belong to the trace " + model.name() + ": its "
                        + names + " is outside the trace's positions 0.." + (model.size() - 1));
            }
            int at = (int) position;
            if (!model.nodes().get(model.laneOf(at)).equals(violation.event().node())
                    || model.lamport(at) != violation.event().lamport()) {
                throw new IllegalArgumentException(report + " does not belong to the trace " + model.name() + ": its "
                        + names + " does not match the trace, which has node " + model.nodes().get(model.laneOf(at))
                        + " at Lamport " + model.lamport(at) + " there (was the report made from another trace?)");
            }
        }
        return read.violations();
    }

    /**
     * The comparison of two runs in words, as {@code deja view A --compare B --text} prints it: both runs, the
     * common prefix, where each node's log parts, and every node's state in both runs at the compared step with the
     * members that differ ({@code full}: the nodes whose states are equal listed in full too). Replays both runs up
     * to the step, telling {@code progress} of each entry replayed (see {@link #entriesToReplay}).
     */
    public static String comparisonText(TraceComparison comparison, ComparisonSettings settings, boolean full,
                                        java.util.function.LongConsumer progress) {
        return dev.deja.view.internal.Comparisons.report(comparison, settings, full, progress);
    }

    /** How many entries a comparison's text or picture replays (both runs up to the compared step). */
    public static long entriesToReplay(TraceComparison comparison, ComparisonSettings settings) {
        return dev.deja.view.internal.Comparisons.entriesToReplay(comparison, settings);
    }

    /**
     * Draws two compared runs to a PNG file (no display needed): run A's graph over run B's around the compared
     * step, the common prefix faded, and the state diff of every node at the step. Replays both runs up to there.
     */
    public static void writeComparisonPng(TraceComparison comparison, ComparisonSettings settings, Path file,
                                          java.util.function.LongConsumer progress) {
        var states = dev.deja.view.internal.Comparisons.states(comparison, settings, progress);
        FxToolkit.start(FxToolkit.Mode.HEADLESS);
        dev.deja.view.internal.Comparisons.writePng(comparison, settings, states, file);
    }

    /**
     * Opens a window on two compared runs and returns when it is closed: both graphs, moving together on the
     * common prefix, and every node's state in both runs at the selected step.
     */
    public static void openComparisonWindow(TraceComparison comparison, ComparisonSettings settings) {
        openAndWait(() -> dev.deja.view.internal.CompareWindow.show(comparison, settings).stage());
    }

    /**
     * Opens the viewer window on {@code model} and returns when it is closed. Needs a display: the toolkit is
     * started on the desktop unless it already runs (headless, in tests, it still opens, off screen).
     */
    public static void openWindow(TraceModel model, WindowSettings settings) {
        openAndWait(() -> ViewerWindow.show(model, settings).stage());
    }

    /** Starts the toolkit on the desktop, opens the window {@code show} makes (on the FX thread) and waits until it closes. */
    private static void openAndWait(java.util.function.Supplier<javafx.stage.Stage> show) {
        FxToolkit.start(FxToolkit.Mode.DISPLAY);
        CountDownLatch closed = new CountDownLatch(1);
        FxToolkit.call(() -> {
            javafx.stage.Stage stage = show.get();
            stage.addEventHandler(javafx.stage.WindowEvent.WINDOW_HIDDEN, event -> closed.countDown());
            return stage;
        });
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
