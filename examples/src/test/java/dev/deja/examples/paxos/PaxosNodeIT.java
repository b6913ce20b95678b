package dev.deja.examples.paxos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.examples.ExampleSimulation;
import dev.deja.examples.paxos.PaxosInvariants.Kind;
import dev.deja.examples.testing.SimulatedRuns;
import dev.deja.node.NodeId;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paxos on the simulator, in the paper's setting (seven processes, 30% message loss, delays of 1..100 ms that
 * reorder messages), checked after every handler by {@link PaxosInvariants} on the replayed nodes. Each bug is
 * found on checked-in seeds and the correct protocol on the same seeds is clean; every failure names the
 * {@code deja simulate} command that makes its run. {@code -Ddeja.paxosSeeds=N} runs N clean seeds (default 8).
 */
class PaxosNodeIT {
    private static final PaxosExample PAXOS = new PaxosExample();
    private static final int NODES = 7;
    /** Seeds on which latest-response breaks agreement in the paper's setting (as in PaxosSimulationIT). */
    private static final long[] LATEST_RESPONSE_SEEDS = {22, 61, 84};
    /** A seed on which the spec bug lowers an agent's accepted round (as in the checker's CheckerPaxosIT). */
    private static final long SPEC_SEED = 3;
    private static final int CLEAN_SEEDS = Integer.getInteger("deja.paxosSeeds", 4);
    private static final UnaryOperator<SimulationSettings.Builder> PAPER = settings -> settings.dropProbability(0.3)
            .delayMillis(1, 100);

    @TempDir
    Path temporary;

    private record Outcome(SimulatedRuns.Run run, PaxosInvariants invariants) {
    }

    private Outcome run(long seed, Optional<String> bug, UnaryOperator<SimulationSettings.Builder> faults) {
        PaxosInvariants invariants = new PaxosInvariants(NODES);
        SimulatedRuns.Run run = SimulatedRuns.run(temporary, PAXOS, NODES, bug, seed, faults, invariants::check);
        return new Outcome(run, invariants);
    }

    @Test
    void correctProtocol_decidesOneValueEverywhere_andTheClientHearsIt() {
        for (long seed = 1; seed <= CLEAN_SEEDS; seed++) {
            Outcome outcome = run(seed, Optional.empty(), PAPER);
            String reproduce = "reproduce: " + outcome.run().command();
            assertThat(outcome.invariants().violations()).as(reproduce).isEmpty();
            assertThat(outcome.invariants().learned()).as(reproduce).hasSize(NODES);
            assertThat(new HashSet<>(outcome.invariants().learned().values())).as(reproduce).hasSize(1);
            assertThat(outcome.run().result().ending()).as(reproduce)
                    .isEqualTo(SimulationResult.Ending.DRIVER_FINISHED);
            // The client logs what every node reported once it has heard from all of them.
            String value = outcome.invariants().learned().values().iterator().next();
            assertThat(outcome.run().output()).as(reproduce).anySatisfy(line -> assertThat(line)
                    .contains("every node decided: ").contains("n1=" + value).contains("n7=" + value));
            assertThat(outcome.run().output()).as(reproduce).noneMatch(line -> line.contains("AGREEMENT VIOLATED"));
        }
    }

    @Test
    void withoutLoss_leadersUseDisjointRounds() {
        for (long seed = 1; seed <= 3; seed++) {
            Outcome outcome = run(seed, Optional.empty(), settings -> settings.delayMillis(1, 10));
            String reproduce = "reproduce: " + outcome.run().command();
            assertThat(outcome.invariants().violations()).as(reproduce).isEmpty();
            assertThat(outcome.invariants().learned()).as(reproduce).hasSize(NODES);
            // Rounds come from disjoint sets: leader i (0-based, by sorted id) uses k * N + i + 1.
            int index = 0;
            for (Map.Entry<NodeId, dev.deja.node.Node> node : outcome.run().nodes().entrySet()) {
                long round = (long) PaxosInvariants.read(PaxosInvariants.field("currentRound"), (PaxosNode) node.getValue());
                if (round > 0) {
                    assertThat(round % NODES).as("round %d of %s; %s", round, node.getKey(), reproduce)
                            .isEqualTo((index + 1) % NODES);
                }
                index++;
            }
        }
    }

    @Test
    void correctProtocol_acrossCrashesDuplicatesAndAPartition_neverDisagrees() {
        for (long seed = 1; seed <= CLEAN_SEEDS; seed++) {
            Outcome outcome = run(seed, Optional.empty(), settings -> PAPER.apply(settings).duplicateProbability(0.05)
                    .crashRate(0.005).restartDelayMillis(300)
                    .partition(dev.deja.runtime.Partition.parse("n1,n2,n3|n4,n5,n6,n7@200ms..700ms")));
            assertThat(outcome.invariants().violations()).as("reproduce: " + outcome.run().command()).isEmpty();
        }
    }

    @Test
    void latestResponseBug_breaksAgreement_andTheCorrectLeaderOnTheSameSeedDoesNot() {
        for (long seed : LATEST_RESPONSE_SEEDS) {
            Outcome buggy = run(seed, Optional.of("latest-response"), PAPER);
            List<PaxosInvariants.Violation> disagreements = buggy.invariants().violations().stream()
                    .filter(violation -> violation.kind() == Kind.DISAGREEMENT).toList();
            assertThat(disagreements).as("reproduce: " + buggy.run().command()).isNotEmpty();
            System.out.printf("PaxosNodeIT: latest-response, seed %d: %s%n", seed, disagreements.getFirst().description());
            Outcome clean = run(seed, Optional.empty(), PAPER);
            assertThat(clean.invariants().violations()).as("reproduce: " + clean.run().command()).isEmpty();
        }
    }

    @Test
    void specBug_decreasesAnAcceptedRound_andTheFixedAgentOnTheSameSeedDoesNot() {
        Outcome buggy = run(SPEC_SEED, Optional.of("spec"), PAPER);
        assertThat(buggy.invariants().violations()).as("reproduce: " + buggy.run().command())
                .anyMatch(violation -> violation.kind() == Kind.ACCEPTED_ROUND_DECREASED);
        Outcome clean = run(SPEC_SEED, Optional.empty(), PAPER);
        assertThat(clean.invariants().violations()).as("reproduce: " + clean.run().command())
                .noneMatch(violation -> violation.kind() == Kind.ACCEPTED_ROUND_DECREASED);
    }

    @Test
    void unknownBug_isRejectedNamingTheValidOnes() {
        assertThatThrownBy(() -> ExampleSimulation.settings(PAXOS, NODES, Optional.of("off-by-one")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("off-by-one")
                .hasMessageContaining("latest-response, spec");
    }
}
