package dev.deja.cli;

import java.nio.file.Path;

/** Where this Deja lives: the launcher passes its directory as {@code deja.home}; otherwise the working directory. */
public final class Installation {
    private Installation() {
    }

    /** A file shipped with Deja, e.g. {@code scripts/paxos.py}. */
    public static Path file(String relative) {
        String home = System.getProperty("deja.home");
        return (home == null ? Path.of("") : Path.of(home)).resolve(relative);
    }
}
