package dev.deja.examples.paxos;

import dev.deja.examples.testing.SimCluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.deja.examples.paxos.PaxosInvariants.Kind;
import dev.deja.node.NodeId;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Runs Paxos on the in-memory {@link SimCluster} over many seeds. Set {@code -Ddeja.test.seed=N} to run a
 * single seed (every failure prints the command).
 */
class PaxosNodeTest {
    private static final int NODE_COUNT = 5;
    private static final String SEED_PROPERTY = "deja.test.seed";
    private static final long RUN_LIMIT_MILLIS = 600_000;
    private static final int RUN_LIMIT_EVENTS = 1_000_000;

    /** Message loss as in the paper, plus occasional slow messages so that rounds overlap and reorder. */
    private static final SimCluster.Network HOSTILE = new SimCluster.Network(0.3, 10, 0.05, 400, 0.0);

    private record Outcome(SimCluster cluster, PaxosInvariants invariants, boolean quiet) {
        boolean allLearned() {
            return quiet && invariants.learned().size() == NODE_COUNT;
        }
    }

    @Test
    void decides_withoutBug() {
        forEachSeed("decides_withoutBug", 1000, seed -> run(seed, Optional.empty(), HOSTILE), outcome -> {
            assertThat(outcome.invariants().violations()).isEmpty();
            assertThat(outcome.allLearned()).as("every node learned a decision").isTrue();
        });
    }

    @Test
    void everyNodeLearns_withoutLoss() {
        forEachSeed("everyNodeLearns_withoutLoss", 100, seed -> run(seed, Optional.empty(),
                new SimCluster.Network(0.0, 10, 0.0, 10, 0.0)), outcome -> {
            assertThat(outcome.invariants().violations()).isEmpty();
            assertThat(outcome.allLearned()).as("every node learned a decision").isTrue();
            assertThat(new HashSet<>(outcome.invariants().learned().values())).hasSize(1);
            // Rounds come from disjoint sets: leader i (0-based, by sorted id) uses k * N + i + 1.
            int index = 0;
            for (NodeId id : outcome.cluster().serverIds()) {
                long round = (long) PaxosInvariants.read(PaxosInvariants.field("currentRound"),
                        (PaxosNode) outcome.cluster().nodes().get(id));
                if (round > 0) {
                    assertThat(round % NODE_COUNT).as("round %d of %s", round, id).isEqualTo((index + 1) % NODE_COUNT);
                }
                index++;
            }
        });
    }

    @Test
    void decides_withoutBug_acrossCrashRestarts() {
        SimCluster.Network crashing = new SimCluster.Network(0.3, 10, 0.05, 400, 0.003);
        forEachSeed("decides_withoutBug_acrossCrashRestarts", 500, seed -> run(seed, Optional.empty(), crashing),
                outcome -> {
                    assertThat(outcome.invariants().violations()).isEmpty();
                    assertThat(outcome.quiet()).as("the run finished").isTrue();
                });
    }

    @Test
    void client_hearsEveryDecision() {
        forEachSeed("client_hearsEveryDecision", 30, seed -> {
            PaxosClient client = new PaxosClient();
            PaxosInvariants invariants = new PaxosInvariants(NODE_COUNT);
            SimCluster cluster = cluster(seed, HOSTILE, invariants).client("client", () -> client);
            cluster.start(Map.of());
            assertThat(client.finished()).isFalse();
            boolean quiet = cluster.run(RUN_LIMIT_MILLIS, RUN_LIMIT_EVENTS);
            assertThat(quiet).as("the client stopped polling").isTrue();
            assertThat(client.finished()).isTrue();
            assertThat(client.decisions()).hasSize(NODE_COUNT);
            assertThat(new HashSet<>(client.decisions().values())).hasSize(1);
            assertThat(client.decisions().values().iterator().next()).matches("v-n[1-5]");
            return new Outcome(cluster, invariants, quiet);
        }, outcome -> assertThat(outcome.invariants().violations()).isEmpty());
    }

    @Test
    void latestResponseBug_breaksAgreement() {
        long seed = findSeed("latestResponseBug_breaksAgreement", "latest-response", 1000, Kind.DISAGREEMENT);
        assertThat(run(seed, Optional.empty(), HOSTILE).invariants().violations())
                .as("the correct leader on the same seed").isEmpty();
    }

    @Test
    void specBug_decreasesAcceptedRound() {
        findSeed("specBug_decreasesAcceptedRound", "spec", 5000, Kind.ACCEPTED_ROUND_DECREASED);
    }

    @Test
    void fixedAgent_neverDecreasesAcceptedRound() {
        forEachSeed("fixedAgent_neverDecreasesAcceptedRound", 5000, seed -> run(seed, Optional.empty(), HOSTILE),
                outcome -> assertThat(outcome.invariants().violations())
                        .filteredOn(violation -> violation.kind() == Kind.ACCEPTED_ROUND_DECREASED).isEmpty());
    }

    @Test
    void unknownBug_isRejectedNamingTheValidOnes() {
        SimCluster cluster = cluster(1, HOSTILE, new PaxosInvariants(NODE_COUNT));
        assertThatThrownBy(() -> cluster.start(Map.of("bug", "off-by-one")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("off-by-one")
                .hasMessageContaining("latest-response, spec");
    }

    /** Searches seeds for one where {@code bug} shows {@code kind}; prints it. */
    private static long findSeed(String testName, String bug, int maxSeeds, Kind kind) {
        long[] seeds = seeds(maxSeeds);
        for (long seed : seeds) {
            Outcome outcome = run(seed, Optional.of(bug), HOSTILE);
            PaxosInvariants.Violation violation = outcome.invariants().violations().stream()
                    .filter(v -> v.kind() == kind).findFirst().orElse(null);
            if (violation != null) {
                System.out.printf("bug %s: seed %d shows %s at %d ms: %s%n  rerun just this seed with: %s%n", bug,
                        seed, kind, violation.atMillis(), violation.description(), rerunCommand(testName, seed));
                return seed;
            }
        }
        return fail("bug " + bug + " showed no " + kind + " with seeds " + seeds[0] + " to " + seeds[seeds.length - 1]);
    }

    private static void forEachSeed(String testName, int seedCount, LongFunction<Outcome> runner,
                                    Consumer<Outcome> check) {
        long[] seeds = seeds(seedCount);
        for (long seed : seeds) {
            try {
                check.accept(runner.apply(seed));
            } catch (AssertionError | RuntimeException e) {
                String rerun = "seed " + seed + " failed; rerun just this seed with: " + rerunCommand(testName, seed);
                System.out.println(rerun);
                throw new AssertionError(rerun + "\n" + e.getMessage(), e);
            }
        }
    }

    private static String rerunCommand(String testName, long seed) {
        return "mvn -pl examples -am test -Dtest=PaxosNodeTest#" + testName
                + " -Dsurefire.failIfNoSpecifiedTests=false -D" + SEED_PROPERTY + "=" + seed;
    }

    /** Seeds 0 to {@code count - 1}, or only the one given with {@code -Ddeja.test.seed}. */
    private static long[] seeds(int count) {
        String value = System.getProperty(SEED_PROPERTY);
        return value == null || value.isBlank() ? LongStream.range(0, count).toArray()
                : new long[] {Long.parseLong(value.trim())};
    }

    private static Outcome run(long seed, Optional<String> bug, SimCluster.Network network) {
        PaxosInvariants invariants = new PaxosInvariants(NODE_COUNT);
        SimCluster cluster = cluster(seed, network, invariants);
        cluster.start(bug.map(name -> Map.of("bug", name)).orElse(Map.of()));
        boolean quiet = cluster.run(RUN_LIMIT_MILLIS, RUN_LIMIT_EVENTS);
        return new Outcome(cluster, invariants, quiet);
    }

    private static SimCluster cluster(long seed, SimCluster.Network network, PaxosInvariants invariants) {
        SimCluster cluster = new SimCluster(seed, network);
        cluster.observe((id, node) -> invariants.check(id, node, cluster.nowMillis()));
        for (int i = 1; i <= NODE_COUNT; i++) {
            cluster.server("n" + i, PaxosNode::new);
        }
        return cluster;
    }
}
