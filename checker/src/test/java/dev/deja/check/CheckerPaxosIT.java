package dev.deja.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.Node;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/paxos.py against simulated seven-process Paxos runs with 30% message loss (the paper's setting): the
 * latest-response bug is caught by global_consistency at the Begin that changes the decision, the
 * specification bug by accepted_round_increasing, and the same seeds without a bug are clean. The seeds were
 * found with {@code -Ddeja.searchSeeds=N}, which prints the first seeds that show each bug; the decision
 * point is also computed independently from the replayed nodes' fields, so the checker must agree with it.
 */
class CheckerPaxosIT {
    private static final Path SCRIPT = ExampleRuns.script("paxos");
    private static final long LATEST_RESPONSE_SEED = 22;
    private static final long SPEC_SEED = 3;

    @TempDir
    Path temporary;

    /** The latest-response bug's run (seed 22), simulated and checked once for the tests that read it. */
    @TempDir
    static Path shared;
    private static Path latestResponseTrace;
    private static InMemoryStateHistory latestResponseHistory;
    private static CheckReport latestResponseReport;

    /** The latest-response run, its history and its report, made by the first test that needs them. */
    private static synchronized CheckReport latestResponseReport() {
        if (latestResponseReport == null) {
            latestResponseTrace = record(shared, LATEST_RESPONSE_SEED, "latest-response");
            latestResponseHistory = new InMemoryStateHistory();
            latestResponseReport = check(latestResponseTrace, latestResponseHistory);
        }
        return latestResponseReport;
    }

    /** The paper's setting: seven processes, 30% message loss, delays of 1..100 ms that reorder messages. */
    static Path record(Path directory, long seed, String bug) {
        return ExampleRuns.simulate(directory, "paxos", 7, Optional.ofNullable(bug), seed,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
    }

    static CheckReport check(Path trace, StateHistory history) {
        return Checker.check(trace, SCRIPT, Checker.Options.defaults().withScriptOutput(OutputStream.nullOutputStream()),
                history);
    }

    private static List<Violation> of(CheckReport report, String predicate) {
        return report.violations().stream().filter(v -> v.predicate().equals(predicate)).toList();
    }

    @Test
    void latestResponseBug_isCaughtAtTheBeginThatChangesTheDecision_andTheCleanRunIsSilent() throws Exception {
        CheckReport report = latestResponseReport();
        Path buggy = latestResponseTrace;
        List<Violation> found = of(report, "global_consistency");
        assertThat(found).as("global_consistency violations in %s (seed %d)", report, LATEST_RESPONSE_SEED).isNotEmpty();
        Violation first = found.getFirst();
        assertThat(first.event().type()).isEqualTo("receive");
        assertThat(first.event().messageType()).contains("Begin");
        assertThat(first.event().position()).isEqualTo(firstDecisionChange(buggy).orElseThrow());
        assertThat(first.aux()).containsKey("changed");
        assertThat((List<?>) first.aux().get("changed")).as("one slot changed its decision").hasSize(1);

        CheckReport clean = check(record(temporary, LATEST_RESPONSE_SEED, null), new InMemoryStateHistory());
        assertThat(clean.violations()).as("no bug, seed %d", LATEST_RESPONSE_SEED).isEmpty();
        assertThat(clean.eventsChecked()).isGreaterThan(100);
    }

    @Test
    void specBug_isCaughtByAcceptedRoundIncreasing_andTheCleanRunIsSilent() throws Exception {
        Path buggy = record(temporary, SPEC_SEED, "spec");
        CheckReport report = check(buggy, new InMemoryStateHistory());
        List<Violation> found = of(report, "accepted_round_increasing");
        assertThat(found).as("accepted_round_increasing violations, seed %d", SPEC_SEED).isNotEmpty();
        assertThat(found.getFirst().event().messageType()).contains("Begin");
        assertThat(found.getFirst().event().position()).isEqualTo(firstAcceptedRoundDecrease(buggy).orElseThrow());
        assertThat(found.getFirst().aux()).containsKey("agent_rounds");
        assertThat(check(record(temporary, SPEC_SEED, null), new InMemoryStateHistory()).violations()).isEmpty();
    }

    @Test
    void latestResponseBug_inOneOfManySlots_isCaughtNamingThatSlot() {
        // Under -Psoak the run of PaxosSimulationIT.slots_eachDecideOneValue_andABugBreaksOnlySomeSlots: 20 slots, seed
        // 6, about 95,000 events; by default 3 slots, seed 12 (about 13,000 events), whose bug changes slot 2 only.
        boolean soak = Boolean.getBoolean("deja.soak");
        int slots = soak ? 20 : 3;
        long seed = soak ? 6 : 12;
        Path trace = ExampleRuns.simulate(temporary, "paxos", 7, Optional.of("latest-response"),
                Map.of("slots", Integer.toString(slots)), seed,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
        String reproduce = "./deja simulate paxos --nodes 7 --bug latest-response --arg slots=" + slots + " --seed " + seed
                + " --drop 0.3 --delay 1ms..100ms --out t && ./deja check t scripts/paxos.py";
        List<Violation> found = of(check(trace, new InMemoryStateHistory()), "global_consistency");
        assertThat(found).as(reproduce).isNotEmpty();
        List<?> changed = (List<?>) found.getFirst().aux().get("changed");
        assertThat(changed).as(reproduce).hasSize(1);
        assertThat(((List<?>) changed.getFirst()).getFirst()).as("the slot whose decision changed").isInstanceOf(Long.class);
    }

    @Test
    void recheck_fromStoredHistory_givesTheSameReport() {
        CheckReport replayed = latestResponseReport();
        CheckReport stored = check(latestResponseTrace, latestResponseHistory);
        assertThat(replayed.fromHistory()).isFalse();
        assertThat(stored.fromHistory()).isTrue();
        assertThat(stored.violations()).isEqualTo(replayed.violations());
        assertThat(stored.eventsChecked()).isEqualTo(replayed.eventsChecked());
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: prints the first seed below N whose run shows each bug, found by the
     * independent oracles below (fast, no Python), then confirmed with the script.
     */
    @Test
    void searchSeeds() throws Exception {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        boolean foundLatest = false;
        boolean foundSpec = false;
        for (long seed = 0; seed < count && !(foundLatest && foundSpec); seed++) {
            if (!foundLatest) {
                Path trace = record(Files.createTempDirectory(temporary, "search"), seed, "latest-response");
                if (firstDecisionChange(trace).isPresent()) {
                    foundLatest = true;
                    System.out.printf("latest-response: seed %d, checker says %s%n", seed, check(trace, new InMemoryStateHistory()).violations());
                }
            }
            if (!foundSpec) {
                Path trace = record(Files.createTempDirectory(temporary, "search"), seed, "spec");
                if (firstAcceptedRoundDecrease(trace).isPresent()) {
                    foundSpec = true;
                    System.out.printf("spec: seed %d, checker says %s%n", seed, check(trace, new InMemoryStateHistory()).violations());
                }
            }
        }
    }

    /** The first position at which some agent's accepted round is lower than after its previous handler. */
    static Optional<Long> firstAcceptedRoundDecrease(Path trace) throws Exception {
        Field acceptedRound = PaxosNode.class.getDeclaredField("acceptedRound");
        acceptedRound.setAccessible(true);
        Map<Object, Long> last = new HashMap<>();
        Long[] found = {null};
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (found[0] != null || !event.startedHandler()) {
                return;
            }
            Node node = state.node(event.entry().node()).orElse(null);
            if (node == null) {
                return;
            }
            try {
                long round = acceptedRound.getLong(node);
                Long before = last.put(event.entry().node(), round);
                if (before != null && round < before) {
                    found[0] = position;
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }));
        return Optional.ofNullable(found[0]);
    }

    /**
     * The first position at which the highest-round value accepted by a majority differs from the value decided
     * before, computed from the replayed nodes' fields, independently of the script.
     */
    static Optional<Long> firstDecisionChange(Path trace) throws Exception {
        Field acceptedRound = PaxosNode.class.getDeclaredField("acceptedRound");
        Field acceptedValue = PaxosNode.class.getDeclaredField("acceptedValue");
        acceptedRound.setAccessible(true);
        acceptedValue.setAccessible(true);
        String[] decided = {null};
        Long[] change = {null};
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (change[0] != null || !event.startedHandler()) {
                return;
            }
            Map<String, Integer> votes = new HashMap<>();
            long bestRound = -1;
            String best = null;
            for (Node node : state.nodes().values()) {
                try {
                    Object value = acceptedValue.get(node);
                    if (value != null) {
                        long round = acceptedRound.getLong(node);
                        String key = round + "/" + value;
                        int count = votes.merge(key, 1, Integer::sum);
                        if (count >= 7 / 2 + 1 && round > bestRound) {
                            bestRound = round;
                            best = (String) value;
                        }
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
            if (best != null) {
                if (decided[0] != null && !Objects.equals(decided[0], best)) {
                    change[0] = position;
                }
                decided[0] = best;
            }
        }));
        return Optional.ofNullable(change[0]);
    }
}
