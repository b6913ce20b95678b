package dev.deja.cli;

import dev.deja.runtime.FaultModel;
import dev.deja.runtime.Partition;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The fault options of a simulated or deployed network ({@code --drop}, {@code --dup}, {@code --delay},
 * {@code --partition}, {@code --crash-rate}, {@code --restart-delay}, {@code --clock-skew}): each option given
 * replaces the same setting of the command's default {@link FaultModel} (or of the cluster file's or the recorded
 * run's); {@code --partition} adds to them. A picocli mixin on its own where a command takes only these
 * ({@code deja check --classify-liveness}), and the base of {@link FaultOptions}, which adds a deployment's.
 */
public class NetworkFaultOptions {
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

    @Option(names = "--crash-rate", paramLabel = "R",
            description = "Probability, after each event, that one running node crashes; unsynced storage writes are lost (simulate only).")
    Double crashRate;

    @Option(names = "--restart-delay", paramLabel = "TIME",
            description = "How long a node crashed by --crash-rate stays down before restarting (simulate; default 500ms).")
    String restartDelay;

    @Option(names = "--clock-skew", paramLabel = "TIME", description = "Each node's clock is off by a fixed amount within +/- TIME.")
    String clockSkew;

    /** {@code base} with every option given here applied on top. */
    public FaultModel applyTo(FaultModel base) {
        FaultModel.Builder builder = base.toBuilder();
        applyTo(builder);
        return builder.build();
    }

    /** Applies every option given here to {@code builder}. */
    void applyTo(FaultModel.Builder builder) {
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
        if (crashRate != null) {
            builder.crashRate(crashRate);
        }
        if (restartDelay != null) {
            builder.restartDelayMillis(FaultModel.millis(restartDelay, "--restart-delay"));
        }
        if (clockSkew != null) {
            builder.clockSkewMillis(FaultModel.millis(clockSkew, "--clock-skew"));
        }
    }
}
