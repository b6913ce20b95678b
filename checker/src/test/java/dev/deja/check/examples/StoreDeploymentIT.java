package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.store.StoreClient;
import dev.deja.examples.store.StoreNode;
import dev.deja.node.NodeId;
import dev.deja.replay.Replayer;
import dev.deja.runtime.Deployment;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper's transient-failure experiment on a real loopback deployment: eight recorded store processes with
 * the {@code transient-failure} bug; the owner of most objects is killed with {@code kill -9} once every object is
 * stored and restarted at once, well inside the failure-detection timeout (the paper's 15 s, so that a slow JVM
 * start on a loaded machine still goes unnoticed). scripts/store.py must find a real complete_reference violation
 * that is open when the restarted node comes back and stays open to the end, every orphan belonging to that node,
 * as the paper's refined predicate showed. (On a quiet machine the span opens at the restart; on a slow one, puts
 * still in flight may have opened it earlier.) A deployment is not deterministic (the restart may come too late
 * for the violation to outlast {@link StoreCheckIT#REAL_MILLIS} before the client finishes, or the run may end while
 * another object's replica is on its way), so it tries up to {@link #ATTEMPTS} times until one attempt meets every
 * condition, and prints every attempt.
 *
 * <p>Runs under {@code -Psoak} only (tag {@code soak}): its processes' start-ups cost the default suite more than
 * its budget allows. StoreCheckIT finds the same bug in simulation in the default build.
 */
@Tag("soak")
class StoreDeploymentIT {
    /** Owns 13 of the 24 objects on the ring of all eight nodes. */
    private static final NodeId VICTIM = new NodeId("n1");
    private static final int ATTEMPTS = 3;
    /**
     * The client's settle time after the last put (8 s by default): on a loaded machine the restarted n1's JVM comes
     * back late, and with the default the membership stood still for only about the 2,500 ms that make a span real
     * before the run ended (2,550 ms seen at load 8; none of three deployments over it in a loaded suite run).
     */
    private static final long SETTLE_MILLIS = 12_000;

    @TempDir
    Path temporary;

    @Test
    void transientFailure_inARecordedDeployment_isCaughtByCompleteReference() throws Exception {
        List<String> attempts = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Path trace = temporary.resolve("trace-" + attempt);
            String command = "./deja deploy store --bug transient-failure --kill n1@3500ms --restart n1@3700ms --record "
                    + trace + " (with node argument " + StoreNode.FAILURE_TIMEOUT_ARG + "=15000 and client argument "
                    + StoreClient.SETTLE_ARG + "=" + SETTLE_MILLIS + ")";
            Deployment.Plan plan = ExampleDeployment.builder(ExampleRuns.example("store")).bug("transient-failure")
                    .arg(StoreNode.FAILURE_TIMEOUT_ARG, "15000")
                    .clientArg(StoreClient.SETTLE_ARG, Long.toString(SETTLE_MILLIS)).duration(Duration.ofSeconds(30))
                    .kill(VICTIM, Duration.ofMillis(3500)).restart(VICTIM, Duration.ofMillis(3700))
                    .record(trace).workDirectory(temporary.resolve("work-" + attempt)).command(command).build().plan();
            new Deployment(plan, System.out).run();
            CheckReport report = ExampleRuns.check(trace, "store");
            long restart = restartPosition(trace);
            List<Violation> orphans = StoreCheckIT.real(report).stream()
                    .filter(v -> v.predicate().equals("complete_reference")).toList();
            String summary = "attempt " + attempt + ": " + report.eventsChecked() + " events, n1 back at " + restart + ", "
                    + report.violations().size() + " spans, real complete_reference: " + orphans.stream()
                    .map(v -> v.event().position() + " " + v.event().node() + " " + v.event().type() + " " + v.auxAtEnd())
                    .toList();
            System.out.println("StoreDeploymentIT " + summary);
            attempts.add(summary + "; " + command);
            if (!orphans.isEmpty()) {
                Violation orphan = orphans.getLast();
                @SuppressWarnings("unchecked")
                List<String> problems = (List<String>) orphan.auxAtEnd().get("problems");
                if (orphan.endPosition().isEmpty() && orphan.event().position() <= restart && problems != null
                        && !problems.isEmpty() && problems.stream().allMatch(p -> p.matches(".*owner n1\\b.*"))) {
                    return;
                }
                // Seen on a slow machine: the run ended while another object's replica was on its way (an orphan whose
                // owner is not n1 at the last event). The next attempt must show the bug alone.
                attempts.set(attempts.size() - 1, attempts.getLast() + "; not the transient failure alone (the span"
                        + " must be open to the end, open by n1's return, and every problem owned by n1)");
            }
        }
        throw new AssertionError("no deployment showed the transient-failure bug alone: " + attempts);
    }

    /** The position of the entry where the victim's second incarnation starts (its crash entry). */
    private static long restartPosition(Path trace) {
        long[] found = {-1};
        Replayer.replay(Trace.open(trace), Replayer.Options.defaults().withListener((event, position, state) -> {
            if (found[0] < 0 && event.entry().node().equals(VICTIM) && event.entry().event() instanceof Event.Crash) {
                found[0] = position;
            }
        }));
        assertThat(found[0]).as("%s was restarted in %s", VICTIM, trace).isNotNegative();
        return found[0];
    }
}
