package dev.deja.cli;

/**
 * How a command that stops cleanly on Ctrl-C (such as {@code deja explore}) learns of it: in a JVM of its own from
 * {@code SIGINT}, in the warm engine ({@code deja daemon}) from its client, which catches the terminal's Ctrl-C and
 * passes it on. Either way the first Ctrl-C runs the command's handler; a second one ends a JVM of its own at once
 * (exit 130), and in the warm engine the client ends itself, as a new JVM would.
 *
 * <p>Thread-safe. The warm engine runs one command at a time, between {@link #relayStarted} and
 * {@link #relayEnded}; an interrupt that comes before the command registered its handler is kept and delivered on
 * registration, so a Ctrl-C during the command's set-up is not lost.
 */
public final class Interrupts {
    private static boolean relayed;
    private static boolean pending;
    private static Runnable handler;

    private Interrupts() {
    }

    /** What {@link #onInterrupt} registered; closing it restores what was there before. */
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** The warm engine starts a command for a client: interrupts now come from {@link #deliver}. */
    public static synchronized void relayStarted() {
        relayed = true;
        pending = false;
        handler = null;
    }

    /** The warm engine's command ended. */
    public static synchronized void relayEnded() {
        relayed = false;
        pending = false;
        handler = null;
    }

    /** Whether the running command is the warm engine's (its client catches Ctrl-C), not a JVM's own. */
    public static synchronized boolean relayed() {
        return relayed;
    }

    /** The warm engine's client was interrupted: runs the command's handler, or keeps the interrupt for it. */
    public static void deliver() {
        Runnable run;
        synchronized (Interrupts.class) {
            if (!relayed) {
                return;
            }
            run = handler;
            handler = null; // once: the client handles a second Ctrl-C itself
            pending = run == null;
        }
        if (run != null) {
            run.run();
        }
    }

    /**
     * Makes the first Ctrl-C run {@code first} (on another thread) until the returned registration is closed; in a JVM
     * of its own a second one exits with 130. Where {@code SIGINT} cannot be caught (another platform, {@code -Xrs}),
     * registers nothing, and Ctrl-C shuts the JVM down as usual.
     */
    public static Registration onInterrupt(Runnable first) {
        boolean interruptedBefore;
        synchronized (Interrupts.class) {
            if (relayed && !pending) {
                handler = first;
                return () -> {
                    synchronized (Interrupts.class) {
                        handler = null;
                    }
                };
            }
            interruptedBefore = relayed; // relayed with an interrupt pending: it came before the command got here
            pending = false;
        }
        if (interruptedBefore) {
            first.run();
            return () -> { };
        }
        return onSigint(first);
    }

    @SuppressWarnings("removal")
    private static Registration onSigint(Runnable first) {
        java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
        sun.misc.Signal signal = new sun.misc.Signal("INT");
        sun.misc.SignalHandler previous;
        try {
            previous = sun.misc.Signal.handle(signal, caught -> {
                if (interrupted.getAndSet(true)) {
                    System.exit(130);
                }
                first.run();
            });
        } catch (IllegalArgumentException e) {
            return () -> { };
        }
        return () -> sun.misc.Signal.handle(signal, previous);
    }
}
