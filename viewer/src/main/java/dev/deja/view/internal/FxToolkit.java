package dev.deja.view.internal;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import dev.deja.view.DisplayUnavailableException;
import javafx.application.Platform;

/**
 * Starts the JavaFX toolkit once per JVM and runs work on its thread.
 *
 * <p>The toolkit reads its platform when it starts, so the choice is made here, before the first start:
 * without a display (or when only pictures are wanted) it runs on JavaFX's built-in headless platform with
 * the software renderer, which needs no X server and draws the same pixels every time. Once started, the
 * toolkit stays up until the JVM exits; later starts are no-ops. Thread-safe.
 */
public final class FxToolkit {
    /** Where the toolkit draws. */
    public enum Mode {
        /** The built-in headless platform and the software renderer: pictures only. */
        HEADLESS,
        /** The desktop's display: windows. */
        DISPLAY
    }

    // Held so that the level set on it is not lost when the logger is garbage-collected.
    private static final Logger JAVAFX_LOGGER = Logger.getLogger("javafx");
    private static Mode started;

    private FxToolkit() {
    }

    /** Whether a desktop display is available to open windows on. */
    public static boolean displayAvailable() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        if (os.contains("win") || os.contains("mac")) {
            return true;
        }
        return System.getenv("DISPLAY") != null || System.getenv("WAYLAND_DISPLAY") != null;
    }

    /**
     * Starts the toolkit in {@code mode} unless it runs already (in whatever mode it was started: a JVM cannot
     * switch). Returns the mode it runs in.
     *
     * @throws DisplayUnavailableException when the desktop toolkit cannot start (no GTK 3, no X server); the JVM
     *                                     cannot start the toolkit again after that
     */
    public static synchronized Mode start(Mode mode) {
        if (started != null) {
            return started;
        }
        if (mode == Mode.HEADLESS) {
            setIfAbsent("glass.platform", "Headless");
            setIfAbsent("prism.order", "sw");
        }
        Mode actual = "Headless".equalsIgnoreCase(System.getProperty("glass.platform")) ? Mode.HEADLESS : Mode.DISPLAY;
        // JavaFX warns that it was loaded from the class path rather than as modules; it works the same.
        JAVAFX_LOGGER.setLevel(Level.SEVERE);
        CountDownLatch ready = new CountDownLatch(1);
        try {
            Platform.startup(ready::countDown);
        } catch (IllegalStateException alreadyRunning) {
            ready.countDown(); // started by someone else in this JVM (a test framework)
        } catch (RuntimeException | LinkageError failed) {
            // Glass throws UnsupportedOperationException without GTK 3 ("Unable to load glass GTK library.") or
            // without a reachable X server ("Unable to open DISPLAY"); a missing native library is a LinkageError.
            throw new DisplayUnavailableException(failed.getMessage() == null ? failed.toString() : failed.getMessage(),
                    failed);
        }
        try {
            ready.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the JavaFX toolkit started", e);
        }
        Platform.setImplicitExit(false);
        started = actual;
        return actual;
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** Runs {@code work} on the JavaFX thread (starting a headless toolkit if none runs) and returns its result. */
    public static <T> T call(Callable<T> work) {
        if (started == null) {
            start(Mode.HEADLESS);
        }
        if (Platform.isFxApplicationThread()) {
            try {
                return work.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        Platform.runLater(() -> {
            try {
                result.complete(work.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the JavaFX thread", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
