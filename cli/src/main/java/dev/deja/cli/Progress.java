package dev.deja.cli;

import java.io.Console;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarRenderer;
import me.tongfei.progressbar.ProgressBarStyle;
import me.tongfei.progressbar.ProgressState;

/**
 * The progress of a long step, on standard error, the same in every command. On a terminal: a bar with the count,
 * the total where known, throughput and ETA, redrawn in place. Otherwise (a log, a pipe, CI): the same figures as
 * a plain line, first after {@link #QUIET_START} and then every {@link #PLAIN_INTERVAL}, so a short step prints
 * nothing and a long one shows it is alive.
 *
 * <p>Thread-safe: {@link #stepTo} and {@link #stepBy} may be called from any thread, as often as every event (the
 * bar only counts; drawing happens on the library's own thread). Close it when the step ends; closing prints the
 * final figures once if anything was printed before.
 *
 * <p>{@code DEJA_PROGRESS=plain} forces plain lines, {@code DEJA_PROGRESS=off} silences progress.
 */
public final class Progress implements AutoCloseable {
    /** A step shorter than this prints no plain line. */
    static final Duration QUIET_START = Duration.ofSeconds(2);
    /** Plain lines come this often. */
    static final Duration PLAIN_INTERVAL = Duration.ofSeconds(10);
    /** The unit of a step measured in time (a deployment's duration): no throughput is shown. */
    public static final String SECONDS = "s";
    /** The total when it is not known: the bar shows the count and throughput only. */
    public static final long UNKNOWN_TOTAL = -1;

    private static final Progress NONE = new Progress(null);

    private final ProgressBar bar;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /** How progress is shown. */
    enum Mode { BAR, PLAIN, OFF }

    /**
     * Starts showing the progress of {@code task} ("check", "replay") counting {@code unit}s ("events") up to
     * {@code total} ({@link #UNKNOWN_TOTAL} if not known).
     */
    public static Progress start(String task, long total, String unit) {
        return start(task, total, unit, mode(), System.err);
    }

    /** A progress that shows nothing, for callers that need one. */
    public static Progress none() {
        return NONE;
    }

    static Progress start(String task, long total, String unit, Mode mode, PrintStream err) {
        if (mode == Mode.OFF) {
            return NONE;
        }
        ProgressBarConsumer consumer;
        int intervalMillis;
        if (mode == Mode.BAR) {
            consumer = new ConsoleProgressBarConsumer(err);
            intervalMillis = 200;
        } else {
            consumer = new PlainLines(err::println, System::nanoTime);
            intervalMillis = 1_000;
        }
        ProgressBarBuilder builder = new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII).setUnit(" " + unit, 1).setUpdateIntervalMillis(intervalMillis)
                .setConsumer(consumer);
        if (!unit.equals(SECONDS)) {
            builder.showSpeed(); // seconds per second says nothing
        }
        if (mode == Mode.BAR) {
            builder.continuousUpdate();
        }
        TimeLeft timeLeft = new TimeLeft();
        builder.setEtaFunction(timeLeft);
        if (mode == Mode.PLAIN || total < 0) {
            // A bar means nothing in a log, nor without a total: the figures alone, in words.
            builder.setRenderer(new Figures(unit, timeLeft));
        }
        return new Progress(builder.build());
    }

    static Mode mode() {
        String forced = System.getenv("DEJA_PROGRESS");
        if ("off".equalsIgnoreCase(forced)) {
            return Mode.OFF;
        }
        if ("plain".equalsIgnoreCase(forced)) {
            return Mode.PLAIN;
        }
        // The warm engine runs commands for a client whose console is not this process's: it says which it is.
        String clientTerminal = System.getProperty(CLIENT_TERMINAL);
        if (clientTerminal != null) {
            return Boolean.parseBoolean(clientTerminal) ? Mode.BAR : Mode.PLAIN;
        }
        Console console = System.console();
        return console != null && console.isTerminal() ? Mode.BAR : Mode.PLAIN;
    }

    /** The system property by which the warm engine says whether its client's console is a terminal. */
    public static final String CLIENT_TERMINAL = "deja.client.terminal";

    /**
     * A progress display fed from counters another thread advances: {@code update} runs four times a second on a daemon
     * thread until the returned poller is closed, which closes the display too.
     */
    public static Poller polling(String task, long total, String unit, Consumer<Progress> update) {
        return new Poller(start(task, total, unit), update);
    }

    /** What {@link #polling} returns; closing it stops the updates, shows the last figures and closes the display. */
    public static final class Poller implements AutoCloseable {
        private final Progress progress;
        private final Consumer<Progress> update;
        private final Thread updater;
        private volatile boolean done;

        private Poller(Progress progress, Consumer<Progress> update) {
            this.progress = progress;
            this.update = update;
            this.updater = Thread.ofPlatform().daemon().name("deja-progress").start(() -> {
                while (!done) {
                    update.accept(progress);
                    try {
                        Thread.sleep(250);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() {
            done = true;
            updater.interrupt();
            try {
                updater.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            update.accept(progress);
            progress.close();
        }
    }

    /** Sets the count done so far. */
    public Progress stepTo(long done) {
        if (bar != null) {
            bar.stepTo(done);
        }
        return this;
    }

    /** Adds {@code count} to the count done. */
    public Progress stepBy(long count) {
        if (bar != null) {
            bar.stepBy(count);
        }
        return this;
    }

    /** Sets or corrects the total. */
    public Progress total(long total) {
        if (bar != null) {
            bar.maxHint(total);
        }
        return this;
    }

    /** A short note after the figures, e.g. the current node or phase. */
    public Progress note(String message) {
        if (bar != null) {
            bar.setExtraMessage(message);
        }
        return this;
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }

    /** The progress as figures: {@code check: 1,234 of 5,000 events (24%), 410 events/s, 3 s elapsed, about 9 s left}. */
    record Figures(String unit, TimeLeft timeLeft) implements ProgressBarRenderer {
        Figures(String unit) {
            this(unit, new TimeLeft());
        }

        @Override
        public String render(ProgressState state, int maxLength) {
            long current = state.getCurrent();
            long max = state.getMax();
            double seconds = state.getElapsedAfterStart().toMillis() / 1000.0;
            Optional<Duration> left = timeLeft.apply(state); // every time, so that it sees the count's first move
            StringBuilder line = new StringBuilder(state.getTaskName()).append(": ");
            line.append(String.format(Locale.ROOT, "%,d", current));
            if (!state.isIndefinite() && max > 0) {
                line.append(String.format(Locale.ROOT, " of %,d %s (%d%%)", max, unit, current * 100 / max));
            } else {
                line.append(' ').append(unit);
            }
            if (seconds > 0) {
                double rate = current / seconds;
                if (!unit.equals(SECONDS)) {
                    line.append(String.format(Locale.ROOT, ", %,.0f %s/s", rate, unit));
                }
                line.append(", ").append(duration(seconds)).append(" elapsed");
                left.ifPresent(time -> line.append(", about ").append(duration(time.toMillis() / 1000.0)).append(" left"));
            }
            String extra = state.getExtraMessage();
            if (extra != null && !extra.isEmpty()) {
                line.append(" (").append(extra).append(')');
            }
            return line.length() > maxLength && maxLength > 0 ? line.substring(0, maxLength) : line.toString();
        }

        private static String duration(double seconds) {
            long whole = Math.round(seconds);
            return whole < 60 ? whole + " s" : whole < 3600 ? String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60)
                    : String.format(Locale.ROOT, "%d h %02d min", whole / 3600, whole % 3600 / 60);
        }
    }

    /**
     * The time left, from the rate since the count was first seen to move: the set-up before the first step
     * (GraalPy's start before the first event is checked, say) is not in it, so a check that spent ten seconds
     * starting its engine does not promise ten minutes more. Nothing until the count has moved twice. Called by the
     * library's drawing thread; synchronized since a renderer may be called from another.
     */
    static final class TimeLeft implements Function<ProgressState, Optional<Duration>> {
        private long firstCount = -1;
        private long firstElapsedNanos;

        @Override
        public synchronized Optional<Duration> apply(ProgressState state) {
            long current = state.getCurrent();
            long max = state.getMax();
            long elapsedNanos = state.getElapsedAfterStart().toNanos();
            if (state.isIndefinite() || max <= 0 || current >= max) {
                return Optional.empty();
            }
            if (firstCount < 0) {
                if (current > 0) {
                    firstCount = current;
                    firstElapsedNanos = elapsedNanos;
                }
                return Optional.empty();
            }
            long done = current - firstCount;
            long nanos = elapsedNanos - firstElapsedNanos;
            if (done <= 0 || nanos <= 0) {
                return Optional.empty();
            }
            return Optional.of(Duration.ofNanos((long) ((max - current) * ((double) nanos / done))));
        }
    }

    /**
     * Passes the bar's text on as a line, but only from {@link #QUIET_START} after the start and then once every
     * {@link #PLAIN_INTERVAL}; the library's final rendering on close is passed on if a line was printed before.
     */
    static final class PlainLines implements ProgressBarConsumer {
        private final Consumer<String> lines;
        private final LongSupplier nanoClock;
        private final long startNanos;
        private long lastPrintedNanos = Long.MIN_VALUE;
        private String latest;
        private boolean latestPrinted;

        PlainLines(Consumer<String> lines, LongSupplier nanoClock) {
            this.lines = lines;
            this.nanoClock = nanoClock;
            this.startNanos = nanoClock.getAsLong();
        }

        @Override
        public synchronized void accept(String rendered) {
            String line = rendered.strip();
            if (line.isEmpty() || line.equals(latest)) {
                return;
            }
            long now = nanoClock.getAsLong();
            boolean first = lastPrintedNanos == Long.MIN_VALUE;
            boolean due = first ? now - startNanos >= QUIET_START.toNanos()
                    : now - lastPrintedNanos >= PLAIN_INTERVAL.toNanos();
            latest = line;
            latestPrinted = false;
            if (due) {
                lines.accept(line);
                lastPrintedNanos = now;
                latestPrinted = true;
            }
        }

        @Override
        public int getMaxRenderedLength() {
            return 160;
        }

        @Override
        public synchronized void close() {
            if (lastPrintedNanos != Long.MIN_VALUE && !latestPrinted && latest != null) {
                lines.accept(latest);
                latestPrinted = true;
            }
        }
    }
}
