package dev.deja.bench;

/** The parts of the benchmark run, in the order they run; each fills its own keys of the results. */
public enum Section {
    /** Operations/s of a loopback key-value cluster with recording off, on, and with JSON logging instead. */
    RECORDING,
    /** Bytes per event and per message, stored and raw, and how they grow with the run's length. */
    TRACE_SIZE,
    /** Replayed events/s of a long trace, and a timer-driven run's wall time over its replay time. */
    REPLAY,
    /** Checked over plain replay, re-check from history over full check, and the JSON-dump baseline. */
    CHECK,
    /** Simulated events/s of every example. */
    SIMULATION,
    /**
     * Explored steps/s and paths/s (Paxos, Chord; with and without predicates), and the time to the first Paxos
     * latest-response violation by random, pct, pos and dpor against a simulate-and-check seed sweep.
     */
    EXPLORE,
    /**
     * Random walks/s to dmax with MaceMC's liveness predicates (RandTree OneRoot, Chord AllNodes, RandTree OneRoot in
     * MaceMC's two-trees scenario), and the time to the critical transition of Chord's succ-succ-hash bug and of
     * RandTree's no-recovery-timer in the two-trees scenario.
     */
    LIVENESS,
    /** Opening a long trace in the viewer and the frame time while panning ({@code deja view}'s drawing, off screen). */
    VIEWER;

    /** The name used on the command line and in the results: lower case, dashes. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
