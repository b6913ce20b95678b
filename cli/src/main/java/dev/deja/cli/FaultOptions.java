package dev.deja.cli;

import dev.deja.runtime.FaultModel;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The fault options every command that runs a cluster takes ({@code deploy}, {@code simulate}, {@code explore}),
 * one grammar for all: the network's ({@link NetworkFaultOptions}) and a deployment's {@code --kill},
 * {@code --restart} (which add to the model) and {@code --fault-seed}. Used as a picocli mixin:
 * {@code @Mixin FaultOptions faults;}.
 */
public final class FaultOptions extends NetworkFaultOptions {
    @Option(names = "--kill", paramLabel = "NODE@TIME", description = "kill -9 NODE at TIME after the workload starts (repeatable; deploy only).")
    List<String> kills = new ArrayList<>();

    @Option(names = "--restart", paramLabel = "NODE@TIME", description = "Restart NODE at TIME as a new incarnation (repeatable; deploy only).")
    List<String> restarts = new ArrayList<>();

    @Option(names = "--fault-seed", paramLabel = "S",
            description = "Seed of a deployment's injected faults: the same seed drops, duplicates and delays the same "
                    + "message ids (default: a new one, printed and kept in trace.json). 'simulate' draws every fault from --seed.")
    Long faultSeed;

    @Override
    void applyTo(FaultModel.Builder builder) {
        super.applyTo(builder);
        kills.forEach(text -> builder.schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.KILL, text)));
        restarts.forEach(text -> builder.schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.RESTART, text)));
        if (faultSeed != null) {
            builder.seed(faultSeed);
        }
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
