package dev.deja.check.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.ExampleDeployment;
import dev.deja.runtime.Deployment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a real loopback deployment of Chord with the {@code finger-boundary} bug (five processes: n4's finger 6
 * starts exactly at n1's key, and n5 fails at 3 s) and finds the oscillating finger in it with scripts/chord.py.
 * A deployment's timing is not repeatable, so a run that does not show the bug is deployed again, a bounded
 * number of times, and every attempt is printed.
 */
class ChordDeploymentIT {
    private static final int ATTEMPTS = 3;

    @TempDir
    Path temporary;

    @Test
    void deployment_withFingerBoundary_showsThePerfectFingerOscillatingOnceTheRingIsStable() throws Exception {
        List<String> attempts = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Path trace = temporary.resolve("trace-" + attempt);
            Deployment.Plan plan = ExampleDeployment.builder(ExampleRuns.example("chord")).nodes(5)
                    .bug("finger-boundary").duration(Duration.ofSeconds(20)).record(trace)
                    .workDirectory(temporary.resolve("work-" + attempt)).command("ChordDeploymentIT attempt " + attempt)
                    .build().plan();
            Deployment.Result result = new Deployment(plan, System.out).run();
            CheckReport report = ExampleRuns.check(trace, "chord");
            List<Violation> oscillations = ExampleRuns.findings(report, "fingers_correct").stream()
                    .filter(span -> ((Number) span.auxAtEnd().get("stabilized")).doubleValue() >= 1.0)
                    .filter(span -> span.auxAtEnd().get("finger_problems").toString().startsWith("[n4: finger 6 is"))
                    .toList();
            String outcome = String.format("attempt %d: %d events checked, workload finished %s, %d findings, "
                    + "%d spans of n4's finger 6 wrong in a stable ring", attempt, report.eventsChecked(),
                    result.driverFinished(), report.violations().size(), oscillations.size());
            System.out.println("ChordDeploymentIT " + outcome);
            attempts.add(outcome);
            if (!oscillations.isEmpty()) {
                Violation first = oscillations.getFirst();
                assertThat(first.event().node().value()).as("%s", first).isEqualTo("n4");
                assertThat(first.event().type()).as("%s", first).isEqualTo("receive");
                assertThat(first.auxAtEnd().get("finger_problems").toString()).as("%s", first).endsWith("should be n1]");
                return;
            }
        }
        throw new AssertionError("no deployment showed the finger-boundary bug: " + attempts);
    }
}
