package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.sim.SimulationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/lockserver.py against simulated runs of the lock service in the paper's setting (one server, 20 clients
 * of 5 lock users, 4 locks; messages take 1..10 ms, none is lost): with {@code release-retry-livelock} the
 * {@code queue_empty} span that opens when a conflicting Acquire puts the livelocked lock into the pending queue
 * is still open at the end, with {@code enough_time} far above the script's threshold and the stuck client named;
 * without the bug every span is a short false alarm. The spans and their {@code enough_time} are also computed
 * independently by {@link LockServerOracle}, which the script must agree with exactly (on the buggy and the clean
 * run of the bug seed); the 50 extra clean seeds are checked with the oracle alone, to keep Python out of the loop.
 * The bug seed was found with {@code -Ddeja.searchSeeds=N}.
 */
class LockServerCheckIT {
    private static final String EXAMPLE = "lockserver";
    private static final Optional<String> BUG = Optional.of("release-retry-livelock");
    /** Long enough for a clean run to finish (4-6 s) and for a livelock to outlast the threshold. */
    private static final long VIRTUAL_MILLIS = 8_000;
    /** A seed whose buggy run livelocks (one client, one lock) after five false alarms, as in the paper's run. */
    private static final long BUG_SEED = 3;
    private static final long FIRST_EXTRA_CLEAN_SEED = 1_000;
    /** How many more seeds the correct protocol runs: {@code -Ddeja.cleanSeeds=N}; the build passes 5, 50 under -Psoak. */
    private static final int EXTRA_CLEAN_SEEDS = Integer.getInteger("deja.cleanSeeds", 50);
    private static final long THRESHOLD_MILLIS = scriptThreshold();

    @TempDir
    Path temporary;

    static ExampleRuns.Run simulate(Path directory, Optional<String> bug, long seed) {
        return ExampleRuns.simulate(directory, EXAMPLE, bug, seed, settings -> settings.maxVirtualMillis(VIRTUAL_MILLIS));
    }

    /** The threshold the script names ({@code ENOUGH_TIME_MILLIS = N}), so script and test cannot drift apart. */
    static long scriptThreshold() {
        try {
            Matcher matcher = Pattern.compile("(?m)^ENOUGH_TIME_MILLIS = (\\d+)$")
                    .matcher(Files.readString(ExampleRuns.script(EXAMPLE)));
            if (!matcher.find()) {
                throw new IllegalStateException(ExampleRuns.script(EXAMPLE) + " defines no ENOUGH_TIME_MILLIS = N");
            }
            return Long.parseLong(matcher.group(1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void check_withTheBug_findsTheLivelockAsAnOpenSpanOverTheThreshold() {
        ExampleRuns.Run run = simulate(temporary, BUG, BUG_SEED);
        LockServerOracle.Analysis oracle = LockServerOracle.analyze(run.trace());
        CheckReport report = ExampleRuns.check(run.trace(), EXAMPLE);
        List<Violation> spans = ExampleRuns.findings(report, "queue_empty");
        printSpans("bug seed " + BUG_SEED, spans, run);

        assertThat(run.result().ending()).as("a livelocked run never finishes: %s", run.command())
                .isEqualTo(SimulationResult.Ending.TIME_LIMIT);
        assertThat(oracle.stuckRevokes()).as("the oracle sees a revoke held up by a retried release: %s",
                run.command()).hasSize(1);
        assertThat(spans.stream().map(LockServerCheckIT::asOracleSpan).toList())
                .as("spans and enough_time as the oracle computes them: %s", run.command())
                .isEqualTo(oracle.spans());

        List<Violation> dark = spans.stream().filter(LockServerCheckIT::overThreshold).toList();
        assertThat(dark).as("exactly one span over %d ms: %s", THRESHOLD_MILLIS, run.command()).hasSize(1);
        Violation livelock = dark.getFirst();
        assertThat(livelock).as("the livelock is the last span: %s", run.command()).isEqualTo(spans.getLast());
        assertThat(livelock.endPosition()).as("still open at the end: %s", run.command()).isEmpty();
        assertThat(livelock.event().node().value()).as(run.command()).isEqualTo("server");
        assertThat(livelock.event().type()).as(run.command()).isEqualTo("receive");
        assertThat(livelock.event().messageType()).as(run.command()).contains("Acquire");
        assertThat(livelock.aux().get("enough_time")).as("0 where the span opens: %s", run.command()).isEqualTo(0L);
        assertThat(livelock.auxAtEnd().get("blocked_revokes")).as(run.command()).isEqualTo(oracle.stuckRevokes());
        assertThat((List<?>) livelock.auxAtEnd().get("pending_locks")).as(run.command()).hasSize(1);
        assertThat(spans.size() - dark.size()).as("false alarms screened out before the livelock: %s",
                run.command()).isPositive();
    }

    @Test
    void check_withoutTheBug_findsOnlyShortFalseAlarms_onTheBugSeed() {
        ExampleRuns.Run run = simulate(temporary, Optional.empty(), BUG_SEED);
        List<Violation> spans = ExampleRuns.findings(ExampleRuns.check(run.trace(), EXAMPLE), "queue_empty");
        printSpans("clean seed " + BUG_SEED, spans, run);
        assertClean(run, spans);
        assertThat(spans.stream().map(LockServerCheckIT::asOracleSpan).toList()).as(run.command())
                .isEqualTo(LockServerOracle.analyze(run.trace()).spans());
    }

    @Test
    void oracle_withoutTheBug_findsNothingPendingForLong_onMoreSeeds() {
        long falseAlarms = 0;
        long longestMillis = 0;
        for (long seed : LongStream.range(FIRST_EXTRA_CLEAN_SEED, FIRST_EXTRA_CLEAN_SEED + EXTRA_CLEAN_SEEDS).toArray()) {
            ExampleRuns.Run run = simulate(temporary, Optional.empty(), seed);
            LockServerOracle.Analysis oracle = LockServerOracle.analyze(run.trace());
            assertThat(run.result().ending()).as("the workload finished: %s", run.command())
                    .isEqualTo(SimulationResult.Ending.DRIVER_FINISHED);
            assertThat(oracle.over(THRESHOLD_MILLIS)).as("spans over %d ms: %s", THRESHOLD_MILLIS, run.command())
                    .isEmpty();
            assertThat(oracle.stuckRevokes()).as(run.command()).isEmpty();
            falseAlarms += oracle.falseAlarms(THRESHOLD_MILLIS);
            longestMillis = Math.max(longestMillis, oracle.spans().stream()
                    .mapToLong(LockServerOracle.Span::enoughTimeAtEnd).max().orElse(0));
        }
        System.out.printf("LockServerCheckIT: %d clean seeds from %d: %d false alarms, longest enough_time %d ms "
                + "(threshold %d ms)%n", EXTRA_CLEAN_SEEDS, FIRST_EXTRA_CLEAN_SEED, falseAlarms, longestMillis,
                THRESHOLD_MILLIS);
    }

    /**
     * With {@code -Ddeja.searchSeeds=N}: prints the seeds below N whose buggy run livelocks (by the oracle) after at
     * least one false alarm, with the script's verdict.
     */
    @Test
    void searchSeeds() throws IOException {
        int count = Integer.getInteger("deja.searchSeeds", 0);
        for (long seed = 0; seed < count; seed++) {
            ExampleRuns.Run run = simulate(Files.createTempDirectory(temporary, "search"), BUG, seed);
            LockServerOracle.Analysis oracle = LockServerOracle.analyze(run.trace());
            if (!oracle.stuckRevokes().isEmpty() && !oracle.over(THRESHOLD_MILLIS).isEmpty()) {
                List<Violation> spans = ExampleRuns.findings(ExampleRuns.check(run.trace(), EXAMPLE), "queue_empty");
                System.out.printf("seed %d livelocks (%s) after %d false alarms; the script finds %d span(s) over "
                                + "%d ms%n", seed, oracle.stuckRevokes(), oracle.falseAlarms(THRESHOLD_MILLIS),
                        spans.stream().filter(LockServerCheckIT::overThreshold).count(), THRESHOLD_MILLIS);
            }
        }
    }

    private static void assertClean(ExampleRuns.Run run, List<Violation> spans) {
        assertThat(run.result().ending()).as("the workload finished: %s", run.command())
                .isEqualTo(SimulationResult.Ending.DRIVER_FINISHED);
        assertThat(spans).as("spans over %d ms: %s", THRESHOLD_MILLIS, run.command())
                .noneMatch(LockServerCheckIT::overThreshold);
        assertThat(spans).as("the queue is empty at the end: %s", run.command())
                .allMatch(span -> span.endPosition().isPresent());
    }

    /** Whether a span is a dark one; the script's own {@code suspect} must say the same. */
    static boolean overThreshold(Violation span) {
        boolean over = enoughTimeAtEnd(span) > THRESHOLD_MILLIS;
        if (!Boolean.valueOf(over).equals(span.auxAtEnd().get("suspect"))) {
            throw new AssertionError("span at " + span.event().position() + ": suspect disagrees with enough_time > "
                    + THRESHOLD_MILLIS + ": " + span.auxAtEnd());
        }
        return over;
    }

    private static long enoughTimeAtEnd(Violation span) {
        Object value = span.auxAtEnd().get("enough_time");
        if (!(value instanceof Long millis)) {
            throw new AssertionError("span at " + span.event().position() + " has no enough_time at its end: "
                    + span.auxAtEnd());
        }
        return millis;
    }

    /** A span as the oracle describes it: where it opened and closed, and its enough_time at its end. */
    static LockServerOracle.Span asOracleSpan(Violation span) {
        return new LockServerOracle.Span(span.event().position(), span.endPosition(), enoughTimeAtEnd(span));
    }

    private static void printSpans(String what, List<Violation> spans, ExampleRuns.Run run) {
        long dark = spans.stream().filter(LockServerCheckIT::overThreshold).count();
        System.out.printf("LockServerCheckIT %s: %d queue_empty spans, %d false alarms (enough_time <= %d ms), %d over"
                + " it; %d events; %s%n", what, spans.size(), spans.size() - dark, THRESHOLD_MILLIS, dark,
                run.result().steps(), run.command());
    }
}
