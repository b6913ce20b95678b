package dev.deja.bench.internal;

import java.io.PrintStream;
import java.util.Locale;

/** Progress lines of a benchmark run, on standard error in the CLI, each stamped with the seconds since the start. */
public final class Progress {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    public Progress(PrintStream out) {
        this.out = out;
    }

    /** Prints one line, formatted with {@link String#format} in the root locale. */
    public void say(String format, Object... args) {
        out.printf(Locale.ROOT, "bench [%5.1f s] %s%n", (System.nanoTime() - startNanos) / 1e9,
                String.format(Locale.ROOT, format, args));
        out.flush();
    }
}
