package dev.deja.view;

/**
 * The viewer window cannot be opened because the desktop display toolkit did not start (no GTK 3, no reachable
 * X server). The message is one line for the user: the reason and the package to install.
 */
public final class DisplayUnavailableException extends RuntimeException {
    /** What a window needs on Linux, with the package to install. */
    public static final String REQUIREMENT = "the window needs an X display and GTK 3 (Debian/Ubuntu: apt-get install "
            + "libgtk-3-0; Fedora: dnf install gtk3)";

    /**
     * @param reason what the toolkit said (e.g. {@code Unable to load glass GTK library.})
     * @param cause  the toolkit's exception
     */
    public DisplayUnavailableException(String reason, Throwable cause) {
        super("cannot open a window: the display toolkit did not start on DISPLAY=" + System.getenv("DISPLAY") + " ("
                + reason.strip() + "); " + REQUIREMENT, cause);
    }
}
