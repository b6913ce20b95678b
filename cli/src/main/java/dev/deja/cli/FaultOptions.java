package dev.deja.cli;

import dev.deja.runtime.FaultModel;
import dev.deja.runtime.Partition;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The fault options every command that runs a cluster takes ({@code deploy}, {@code simulate}), one grammar for
 * all: each option given replaces the same setting of the command's default {@link FaultModel} (or of the cluster
 * file's {@code "faults"}); {@code --partition}, {@code --kill} and {@code --restart} add to them. Used as a
 * picocli mixin: {@code @Mixin FaultOptions faults;}.
 */
public final class FaultOptions {
    @Option(names = "--drop", paramLabel = "P", description = "Probability that a message between two nodes is lost.")
    Double drop;

    @Option(names = "--dup", paramLabel = "P", description = "Probability that a message is delivered twice.")
    Double dup;

    @Option(names = "--delay", paramLabel = "MIN..MAX",
            description = "Time a message spends in the network (deploy: on top of TCP's), uniformly in MIN..MAX, e.g. "
                    + "1ms..50ms; a single MAX means 0..MAX. Unequal delays reorder messages.")
    String delay;

    @Option(names = "--partition", paramLabel = "SPEC",
            description = "A partition and its healing, GROUP|GROUP@START..HEAL timed from the workload's start, e.g. "
                    + "'n1,n2|n3,n4,n5@2s..5s' (repeatable).")
    List<String> partitions = new ArrayList<>();

    @Option(names = "--kill", paramLabel = "NODE@TIME", description = "kill -9 NODE at TIME after the workload starts (repeatable; deploy only).")
    List<String> kills = new ArrayList<>();

    @Option(names = "--restart", paramLabel = "NODE@TIME", description = "Restart NODE at TIME as a new incarnation (repeatable; deploy only).")
    List<String> restarts = new ArrayList<>();

    @Option(names = "--crash-rate", paramLabel = "R",
            description = "Probability, after each event, that one running node crashes; unsynced storage writes are lost (simulate only).")
    Double crashRate;

    @Option(names = "--restart-delay", paramLabel = "TIME",
            description = "How long a node crashed by --crash-rate stays down before restarting (simulate; default 500ms).")
    String restartDelay;

    @Option(names = "--clock-skew", paramLabel = "TIME", description = "Each node's clock is off by a fixed amount within +/- TIME.")
    String clockSkew;

    @Option(names = "--fault-seed", paramLabel = "S",
            description = "Seed of a deployment's injected faults: the same seed drops, duplicates and delays the same "
                    + "message ids (default: a new one, printed and kept in trace.json). 'simulate' draws every fault from --seed.")
    Long faultSeed;

    /** {@code base} with every option given here applied on top. */
    public FaultModel applyTo(FaultModel base) {
        FaultModel.Builder builder = base.toBuilder();
        if (drop != null) {
            builder.dropProbability(drop);
        }
        if (dup != null) {
            builder.duplicateProbability(dup);
        }
        if (delay != null) {
            long[] range = FaultModel.delayRange(delay, "--delay");
            builder.delayMillis(range[0], range[1]);
        }
        partitions.forEach(spec -> builder.partition(Partition.parse(spec)));
        kills.forEach(text -> builder.schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.KILL, text)));
        restarts.forEach(text -> builder.schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.RESTART, text)));
        if (crashRate != null) {
            builder.crashRate(crashRate);
        }
        if (restartDelay != null) {
            builder.restartDelayMillis(FaultModel.millis(restartDelay, "--restart-delay"));
        }
        if (clockSkew != null) {
            builder.clockSkewMillis(FaultModel.millis(clockSkew, "--clock-skew"));
        }
        if (faultSeed != null) {
            builder.seed(faultSeed);
        }
        return builder.build();
    }

    /** Whether {@code --fault-seed} was given. */
    public boolean hasFaultSeed() {
        return faultSeed != null;
    }

    /** Whether {@code --kill} or {@code --restart} was given. */
    boolean hasScheduled() {
        return !kills.isEmpty() || !restarts.isEmpty();
    }
}
