package dev.deja.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.runtime.Deployment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/paxos.py on recorded loopback deployments of seven Paxos processes (30% loss, up to 50 ms of extra
 * delay): whether a real run breaks is up to the network, so the checker's findings are compared with the
 * independent oracles of {@link CheckerPaxosIT} on the same trace: the checker reports global_consistency at
 * exactly the position where the decision first changes, and accepted_round_increasing exactly where an
 * accepted round first decreases, or nothing when the run stayed correct. The correct protocol must be clean.
 */
class CheckerPaxosDeploymentIT {
    @TempDir
    Path temporary;

    private Path deploy(String name, Optional<String> bug) throws Exception {
        Path trace = temporary.resolve(name);
        Deployment.Plan plan = ExampleDeployment.builder(new PaxosExample()).nodes(7).bug(bug.orElse(null))
                .dropProbability(0.3).maxExtraDelay(Duration.ofMillis(50)).duration(Duration.ofSeconds(10))
                .record(trace).workDirectory(temporary.resolve(name + "-work")).command("CheckerPaxosDeploymentIT")
                .build().plan();
        new Deployment(plan, System.out).run();
        return trace;
    }

    @Test
    void latestResponseBug_inARecordedDeployment_isReportedExactlyWhereTheDecisionChanges() throws Exception {
        Path trace = deploy("latest-response", Optional.of("latest-response"));
        CheckReport report = CheckerPaxosIT.check(trace, new InMemoryStateHistory());
        Optional<Long> change = CheckerPaxosIT.firstDecisionChange(trace);
        List<Violation> found = report.violations().stream()
                .filter(v -> v.predicate().equals("global_consistency")).toList();
        System.out.printf("CheckerPaxosDeploymentIT: %d events checked; the decision %s; the checker found %s%n",
                report.eventsChecked(), change.map(p -> "changed at position " + p).orElse("never changed"), found);
        assertThat(report.eventsChecked()).isGreaterThan(50);
        assertThat(found.stream().map(v -> v.event().position()).findFirst()).isEqualTo(change);
    }

    @Test
    void correctProtocol_inARecordedDeployment_isClean() throws Exception {
        Path trace = deploy("clean", Optional.empty());
        CheckReport report = CheckerPaxosIT.check(trace, new InMemoryStateHistory());
        assertThat(CheckerPaxosIT.firstDecisionChange(trace)).isEmpty();
        assertThat(CheckerPaxosIT.firstAcceptedRoundDecrease(trace)).isEmpty();
        assertThat(report.violations()).as("trace %s", trace).isEmpty();
        assertThat(report.eventsChecked()).isGreaterThan(50);
    }
}
