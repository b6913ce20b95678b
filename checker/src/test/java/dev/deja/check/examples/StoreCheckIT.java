package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.sim.SimulationSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/store.py against simulated eight-node runs of the replicated store. Its predicates are liveness
 * properties, so spans open and close all the time (objects being written, moved, repaired; nodes restarting);
 * a span is a <em>real</em> violation when its {@code stabilized} aux at its last false event reached
 * {@link #REAL_MILLIS}: some object stayed wrong that long with membership standing still.
 *
 * <p>Each bug is caught on a checked-in seed by the predicate the paper names, at the event that does the
 * damage, and the spans agree with {@link StoreOracle}, which computes them in Java from the replayed nodes. The
 * same seeds without the bug, and more (10 by default, 50 under -Psoak), have no real violation. {@code -Ddeja.searchSeeds=N} prints the first
 * seeds below N on which the oracle sees each bug.
 */
class StoreCheckIT {
    /** A problem that outlives repair (about a second) by this much while membership stands still is a bug. */
    static final long REAL_MILLIS = 2500;
    static final long BALANCE_RACE_SEED = 4;
    static final long TRANSIENT_FAILURE_SEED = 7;
    static final long FIRST_EXTRA_CLEAN_SEED = 1000;
    static final int EXTRA_CLEAN_SEEDS = 50;

    @TempDir
    Path temporary;

    /** The simulated environments: messages take 1..10 ms; crashes (about one per run) come back fast or slowly. */
    enum Faults implements UnaryOperator<SimulationSettings.Builder> {
        /** No crash: load balancing, which runs in every run, is all the balance-race bug needs. */
        NONE(0, 0),
        /** Restarts well inside the failure detector's 4 s timeout, so nobody notices them: transient failures. */
        TRANSIENT_RESTARTS(0.0005, 1000),
        /** Nodes down longer than the timeout: declared failed, repaired, back as members with extra replicas. */
        LONG_OUTAGES(0.0005, 6000);

        final double crashRate;
        final long restartDelayMillis;

        Faults(double crashRate, long restartDelayMillis) {
            this.crashRate = crashRate;
            this.restartDelayMillis = restartDelayMillis;
        }

        @Override
        public SimulationSettings.Builder apply(SimulationSettings.Builder settings) {
            settings.delayMillis(1, 10);
            return crashRate == 0 ? settings : settings.crashRate(crashRate).restartDelayMillis(restartDelayMillis);
        }

        /** The environment under which each bug shows. */
        static Faults showing(String bug) {
            return bug.equals("balance-race") ? NONE : TRANSIENT_RESTARTS;
        }
    }

    static List<Violation> real(CheckReport report) {
        return report.violations().stream().filter(v -> v.kind() == Violation.Kind.EVENTUALLY
                && ((Number) v.auxAtEnd().getOrDefault("stabilized", 0L)).longValue() >= REAL_MILLIS).toList();
    }

    /** The script's report and the oracle's spans of one run, with the command that makes the run again. */
    record Checked(ExampleRuns.Run run, CheckReport report, List<StoreOracle.Span> oracle) {
        List<Violation> real() {
            return StoreCheckIT.real(report);
        }

        List<StoreOracle.Span> oracleReal() {
            return oracle.stream().filter(span -> span.real(REAL_MILLIS)).toList();
        }
    }

    private Checked checked(Optional<String> bug, long seed, Faults faults) throws Exception {
        ExampleRuns.Run run = ExampleRuns.simulate(Files.createTempDirectory(temporary, "run"), "store", bug, seed,
                faults);
        return new Checked(run, ExampleRuns.check(run.trace(), "store"), StoreOracle.spans(run.trace()));
    }

    /** The script's spans as the oracle's: predicate, start, end, the stabilization measure at the end. */
    private static List<String> spanKeys(List<Violation> violations) {
        return violations.stream().map(v -> v.predicate() + " " + v.event().position() + ".." + v.endPosition()
                .map(String::valueOf).orElse("end") + " stabilized " + v.auxAtEnd().get("stabilized")).sorted().toList();
    }

    private static List<String> oracleKeys(List<StoreOracle.Span> spans) {
        return spans.stream().map(s -> s.predicate() + " " + s.start() + ".." + s.end().map(String::valueOf).orElse("end")
                + " stabilized " + s.stabilizedAtEnd()).sorted().toList();
    }

    @Test
    void balanceRace_isCaughtByReplicaDegree_atTheDeleteThatLeavesTwoReplicas() throws Exception {
        Checked buggy = checked(Optional.of("balance-race"), BALANCE_RACE_SEED, Faults.NONE);
        String command = buggy.run().command();
        assertThat(spanKeys(buggy.report().violations())).as("every span agrees with the oracle; %s", command)
                .isEqualTo(oracleKeys(buggy.oracle()));
        assertThat(buggy.real()).as("real violations of %s", command).isNotEmpty()
                .allMatch(v -> v.predicate().equals("replica_degree"));
        Violation loss = buggy.real().getFirst();
        assertThat(loss.endPosition()).as("still open at the end; %s", command).isEmpty();
        assertThat(loss.event().type()).as(command).isEqualTo("receive");
        // The copy's holder deletes it on the owner's Drop, the source deletes its own on MoveDone: whichever
        // comes second leaves two replicas.
        assertThat(loss.event().messageType()).as(command).hasValueSatisfying(
                type -> assertThat(type).isIn("MoveDone", "Drop"));
        assertThat(loss.event().position()).as(command).isEqualTo(buggy.oracleReal().getFirst().start());
        assertThat(problems(loss)).as(command).isNotEmpty().allMatch(problem -> problem.contains(": 2 replicas on"));
    }

    @Test
    void transientFailure_isCaughtByCompleteReference_fromTheRestartOfTheOwner() throws Exception {
        Checked buggy = checked(Optional.of("transient-failure"), TRANSIENT_FAILURE_SEED, Faults.TRANSIENT_RESTARTS);
        String command = buggy.run().command();
        assertThat(buggy.run().result().crashes()).as(command).isPositive();
        assertThat(spanKeys(buggy.report().violations())).as("every span agrees with the oracle; %s", command)
                .isEqualTo(oracleKeys(buggy.oracle()));
        List<Violation> orphans = buggy.real().stream().filter(v -> v.predicate().equals("complete_reference")).toList();
        assertThat(orphans).as("real complete_reference violations of %s", command).hasSize(1);
        Violation orphan = orphans.getFirst();
        // The span opens where the restarted node comes back with an empty index (its crash entry starts the new
        // incarnation), and every orphan at the end belongs to it.
        assertThat(orphan.event().type()).as(command).isEqualTo("crash");
        assertThat(orphan.event().incarnation()).as(command).isEqualTo(2);
        String restarted = orphan.event().node().value();
        assertThat(problems(orphan)).as(command).isNotEmpty()
                .allMatch(problem -> problem.matches(".*owner " + restarted + "\\b.*"));
        assertThat(buggy.real()).as(command).allMatch(v -> !v.predicate().equals("replica_degree"));
    }

    @Test
    void noBug_onTheBugSeeds_hasFalseAlarmsOnly() throws Exception {
        for (String bug : List.of("balance-race", "transient-failure")) {
            long seed = bug.equals("balance-race") ? BALANCE_RACE_SEED : TRANSIENT_FAILURE_SEED;
            Checked clean = checked(Optional.empty(), seed, Faults.showing(bug));
            String command = clean.run().command();
            assertThat(clean.real()).as("no real violation without a bug; %s", command).isEmpty();
            assertThat(clean.report().violations()).as("spans from work in flight; %s", command).isNotEmpty();
            assertThat(spanKeys(clean.report().violations())).as("every span agrees with the oracle; %s", command)
                    .isEqualTo(oracleKeys(clean.oracle()));
        }
    }

    /**
     * Half the seeds with transient restarts, half with outages the failure detector notices (repair, rejoin,
     * remove-extra-replicas), judged by the oracle; the longest false alarm is printed to show the margin.
     * {@code -Ddeja.cleanSeeds=N} sweeps N seeds instead (the build passes 5, 50 under -Psoak).
     */
    @Test
    void noBug_onMoreSeedsWithCrashes_hasNoRealViolation() throws Exception {
        long longestFalseAlarm = 0;
        long crashes = 0;
        int count = Integer.getInteger("deja.cleanSeeds", EXTRA_CLEAN_SEEDS);
        for (long seed = FIRST_EXTRA_CLEAN_SEED; seed < FIRST_EXTRA_CLEAN_SEED + count; seed++) {
            Faults faults = seed % 2 == 0 ? Faults.TRANSIENT_RESTARTS : Faults.LONG_OUTAGES;
            ExampleRuns.Run run = ExampleRuns.simulate(Files.createTempDirectory(temporary, "clean"), "store",
                    Optional.empty(), seed, faults);
            List<StoreOracle.Span> spans = StoreOracle.spans(run.trace());
            assertThat(spans.stream().filter(span -> span.real(REAL_MILLIS)).toList())
                    .as("no real violation without a bug (%s); %s", faults, run.command()).isEmpty();
            longestFalseAlarm = Math.max(longestFalseAlarm, spans.stream().mapToLong(StoreOracle.Span::stabilizedAtEnd)
                    .max().orElse(0));
            crashes += run.result().crashes();
        }
        System.out.printf("StoreCheckIT: %d clean seeds, %d crashes, longest false alarm %d ms (real from %d ms)%n",
                count, crashes, longestFalseAlarm, REAL_MILLIS);
        assertThat(crashes).as("the seeds exercise restarts").isGreaterThan(count / 4);
    }

    @SuppressWarnings("unchecked")
    private static List<String> problems(Violation violation) {
        return (List<String>) violation.auxAtEnd().get("problems");
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: for each bug, the seeds below N whose run the oracle finds a real
     * violation in (fast, no Python), with what it found.
     */
    @Test
    void searchSeeds() throws Exception {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        for (String bug : List.of("balance-race", "transient-failure")) {
            for (long seed = 0; seed < count; seed++) {
                ExampleRuns.Run run = ExampleRuns.simulate(Files.createTempDirectory(temporary, "search"), "store",
                        Optional.of(bug), seed, Faults.showing(bug));
                List<StoreOracle.Span> real = StoreOracle.spans(run.trace()).stream().filter(s -> s.real(REAL_MILLIS)).toList();
                if (!real.isEmpty()) {
                    System.out.printf("%s seed %d (%d crashes): %s%n  %s%n", bug, seed, run.result().crashes(), real,
                            run.command());
                }
            }
        }
    }
}
