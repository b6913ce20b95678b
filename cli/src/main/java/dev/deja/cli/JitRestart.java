package dev.deja.cli;

import dev.deja.check.Checker;

/**
 * Tells, as a one-shot check runs its Python predicates interpreted, whether it would end sooner started again with
 * the Graal JIT. A new JVM starts checking in about a second interpreted (from the JVM's AOT cache), against several
 * with the JIT, which the AOT cache cannot hold; but interpreted predicates cost about 20 times as much per call, so a
 * script whose predicates are heavy (Paxos with 300 slots: up to 3 ms per event) is better off with the JIT from the start.
 * Which one a script is cannot be told before it runs: the launcher starts one-shot checks interpreted and says, by the
 * system property {@value #PROPERTY}, with which exit status to ask it for the JIT instead; the check stops and exits
 * with it once the events left would take more than {@link #REMAINING_NANOS} (or {@value #REMAINING_PROPERTY}) at its latest pace (the JIT's start and
 * compilation cost 6-15 s here). What the check wrote before it stopped is an unfinished history, which the check run
 * again replaces. The launcher starts a --watch so too: a check that asks for the JIT ends the command, which the
 * launcher runs again with the JIT from the start ({@value #RESTARTED_PROPERTY}). In a JVM that stays and has the JIT
 * (the warm engine of {@code deja daemon}, a --watch started without the launcher) the check command does the same
 * itself: its predicates start in a second Python engine that never compiles, and a check that asks for the JIT runs
 * again in the same JVM.
 */
public final class JitRestart {
    /** The system property holding the exit status that asks the launcher to run the command again with the JIT. */
    public static final String PROPERTY = "deja.python.jitRestartStatus";

    /** The least time over which the pace is taken from calls close together. */
    static final long WINDOW_NANOS = 1_000_000_000L;

    /** The least time between two calls over which the pace is taken from them alone. */
    static final long INTERVAL_NANOS = 500_000_000L;

    /** Events left that would take longer than this interpreted make the check start again with the JIT. */
    static final long REMAINING_NANOS = 12_000_000_000L;

    /** The system property that sets another limit than {@link #REMAINING_NANOS}, in milliseconds. */
    public static final String REMAINING_PROPERTY = "deja.python.jitRestartRemainingMillis";

    /**
     * The system property by which the launcher tells the JVM it started again with the JIT after such a request: a
     * --watch there checks with the JIT from the start (see CheckCommand.interpretsFirst).
     */
    public static final String RESTARTED_PROPERTY = "deja.python.jitRestarted";

    /** The request to run the command again with the JIT. */
    static final class Restart extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final boolean byTheLauncher;

        Restart(String message, int status, boolean byTheLauncher) {
            super(message, null, false, false);
            this.status = status;
            this.byTheLauncher = byTheLauncher;
        }

        int status() {
            return status;
        }

        /** Whether the launcher runs the command again (else the check command, in this JVM). */
        boolean byTheLauncher() {
            return byTheLauncher;
        }
    }

    private final int status;
    private final boolean byTheLauncher;
    private final long remainingNanos;
    // The pace is the latest one: a check's cost per event can grow as it goes (Paxos with 300 slots checks its first
    // 10,000 events in no time and the next 1,000 in 3 s). It is taken over the interval since the previous call if that
    // lasted INTERVAL_NANOS (calls come after each batch of events, in bursts while events are cheap), and over the
    // window since the last judgement once that lasted WINDOW_NANOS (calls close together while events stay cheap).
    private long windowNanos = -1;
    private long windowPosition;
    private long previousNanos;
    private long previousPosition;

    /** Restarts with exit status {@code status} (none if it is negative) past {@link #REMAINING_NANOS}. */
    JitRestart(int status) {
        this(status, REMAINING_NANOS, false);
    }

    /**
     * Restarts with exit status {@code status} (none if it is negative) once more than {@code remainingNanos} are left,
     * {@code byTheLauncher} or in this JVM.
     */
    JitRestart(int status, long remainingNanos, boolean byTheLauncher) {
        this.status = status;
        this.remainingNanos = remainingNanos;
        this.byTheLauncher = byTheLauncher;
    }

    /** The launcher's (or the warm engine's) request, or one that never restarts (no such property, or the JIT is on). */
    static JitRestart fromLauncher() {
        String value = System.getProperty(PROPERTY);
        int status = -1;
        if (value != null && Checker.pythonInterpretedOnPurpose()) {
            try {
                status = Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                status = -1;
            }
        }
        return new JitRestart(status, remainingNanos(), true);
    }

    /**
     * One that restarts with exit status {@code status}, for a check that runs again with the JIT in this JVM (one of
     * a JVM that stays, see CheckCommand).
     */
    static JitRestart inThisJvm(int status) {
        return new JitRestart(status, remainingNanos(), false);
    }

    /** {@link #REMAINING_NANOS}, or what {@value #REMAINING_PROPERTY} sets. */
    private static long remainingNanos() {
        return Long.getLong(REMAINING_PROPERTY, REMAINING_NANOS / 1_000_000) * 1_000_000;
    }

    /**
     * Called as the check reaches {@code position} of {@code last}: throws {@link Restart} if the events left would
     * take more than {@link #REMAINING_NANOS} at the latest pace.
     */
    void check(long position, long last) {
        check(position, last, System.nanoTime());
    }

    /** {@link #check(long, long)} at {@code nowNanos}. */
    void check(long position, long last, long nowNanos) {
        if (status < 0) {
            return;
        }
        if (windowNanos < 0) {
            windowNanos = nowNanos;
            windowPosition = position;
            previousNanos = nowNanos;
            previousPosition = position;
            return;
        }
        long interval = nowNanos - previousNanos;
        if (interval >= INTERVAL_NANOS) {
            judge(interval, position - previousPosition, position, last);
        }
        previousNanos = nowNanos;
        previousPosition = position;
        long window = nowNanos - windowNanos;
        if (window >= WINDOW_NANOS) {
            judge(window, position - windowPosition, position, last);
            windowNanos = nowNanos;
            windowPosition = position;
        }
    }

    /** Throws {@link Restart} if the events left after {@code position} would take too long at this pace. */
    private void judge(long elapsedNanos, long done, long position, long last) {
        if (done <= 0) {
            return;
        }
        double remaining = (double) elapsedNanos / done * (last - position);
        if (remaining > remainingNanos) {
            throw new Restart(String.format(java.util.Locale.ROOT, "the predicates take %.1f ms per event interpreted"
                    + " (about %d s for the %,d events left), so the check starts again with the Graal JIT",
                    elapsedNanos / 1e6 / done, Math.round(remaining / 1e9), last - position), status, byTheLauncher);
        }
    }
}
