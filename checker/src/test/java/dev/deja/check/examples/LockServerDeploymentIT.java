package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.ExampleDeployment;
import dev.deja.runtime.Deployment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a real loopback deployment of the lock service with {@code release-retry-livelock} (a server and ten
 * clients, each its own process; up to 30 ms of extra delay per message, so revokes spend time in flight) and finds
 * the livelock in it with scripts/lockserver.py: a {@code queue_empty} span still open at the end, whose
 * {@code enough_time} there exceeds the script's threshold and whose stuck client the oracle confirms. A deployment
 * is not deterministic, so a run without a livelock (its workload finishes) is retried, up to {@value #ATTEMPTS}
 * times; every attempt is printed.
 *
 * <p>Runs under {@code -Psoak} only (tag {@code soak}): its processes' start-ups cost the default suite more than
 * its budget allows. LockServerCheckIT finds the same livelock in simulation in the default build.
 */
@Tag("soak")
class LockServerDeploymentIT {
    private static final int ATTEMPTS = 3;
    private static final int NODES = 11;
    private static final Duration DELAY = Duration.ofMillis(30);
    private static final Duration DURATION = Duration.ofSeconds(10);
    private static final String BUG = "release-retry-livelock";

    @TempDir
    Path temporary;

    @Test
    void deployment_withTheBug_livelocks_andTheScriptFindsTheDarkSpan() throws Exception {
        long threshold = LockServerCheckIT.scriptThreshold();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Path trace = temporary.resolve("trace-" + attempt);
            String command = "./deja deploy lockserver --nodes " + NODES + " --bug " + BUG + " --delay "
                    + DELAY.toMillis() + "ms --duration " + DURATION.toSeconds() + "s --record " + trace
                    + " && ./deja check " + trace + " scripts/lockserver.py";
            Deployment.Plan plan = ExampleDeployment.builder(ExampleRuns.example("lockserver")).nodes(NODES).bug(BUG)
                    .maxExtraDelay(DELAY).duration(DURATION).record(trace)
                    .workDirectory(temporary.resolve("work-" + attempt)).command(command).build().plan();
            Deployment.Result result = new Deployment(plan, System.out).run();
            LockServerOracle.Analysis oracle = LockServerOracle.analyze(trace);
            boolean livelocked = !oracle.stuckRevokes().isEmpty() && !oracle.over(threshold).isEmpty();
            System.out.printf("LockServerDeploymentIT attempt %d: workload %s after %.1f s, %d entries, stuck revokes "
                            + "%s, %d span(s) of the pending queue, %d over %d ms%n", attempt,
                    result.driverFinished() ? "finished" : "unfinished", result.elapsed().toMillis() / 1000.0,
                    oracle.entries(), oracle.stuckRevokes(), oracle.spans().size(), oracle.over(threshold).size(),
                    threshold);
            if (!livelocked) {
                continue;
            }
            CheckReport report = ExampleRuns.check(trace, "lockserver");
            List<Violation> spans = ExampleRuns.findings(report, "queue_empty");
            List<Violation> dark = spans.stream().filter(LockServerCheckIT::overThreshold).toList();
            System.out.printf("LockServerDeploymentIT: the script found %d queue_empty spans, %d false alarms, %d over "
                    + "%d ms: %s%n", spans.size(), spans.size() - dark.size(), dark.size(), threshold,
                    dark.isEmpty() ? "-" : dark.getLast().auxAtEnd());
            assertThat(result.driverFinished()).as("a livelocked workload never finishes: %s", command).isFalse();
            assertThat(spans.stream().map(LockServerCheckIT::asOracleSpan).toList())
                    .as("spans and enough_time as the oracle computes them: %s", command).isEqualTo(oracle.spans());
            assertThat(dark).as("spans over the threshold: %s", command).isNotEmpty();
            Violation livelock = dark.getLast();
            assertThat(livelock.endPosition()).as("still open at the end: %s", command).isEmpty();
            assertThat(livelock.event().node().value()).as(command).isEqualTo("server");
            assertThat(livelock.event().messageType()).as(command).contains("Acquire");
            assertThat(livelock.auxAtEnd().get("blocked_revokes")).as(command).isEqualTo(oracle.stuckRevokes());
            return;
        }
        throw new AssertionError("no livelock in " + ATTEMPTS + " deployments (see the attempts above)");
    }
}
