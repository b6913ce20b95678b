package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo finishes on any machine: when the nodes do not come up, it shows the bug in the simulator. */
class DemoCommandIT {
    @TempDir
    Path temporary;

    @Test
    void demo_whenTheNodesDoNotStartInTime_fallsBackToTheSimulatorAndExitsZero() {
        Path out = temporary.resolve("demo");
        // 1 ms is far too short for any JVM to start listening: start-up fails as on a heavily loaded machine.
        CliRun.Output output = CliRun.run("demo", "--out", out.toString(), "--start-timeout", "1ms", "--no-view",
                "--script", Path.of("../scripts/paxos.py").toString());

        assertThat(output.status()).as(output.out() + output.err()).isEqualTo(ExitCodes.OK);
        assertThat(output.out())
                .contains("deja demo: the deployment failed: node n1 did not listen on ")
                .contains("within 1 ms (7 node JVMs starting on ")
                .contains("a longer limit: --start-timeout")
                .contains("the deployment did not run (above). The deterministic simulator shows the bug on seed 22:")
                .contains("== ./deja simulate paxos --nodes 7 --bug latest-response --seed 22")
                .contains("deja demo: the simulated run broke Paxos: ")
                .contains("deja demo: to check this trace again yourself:  ./deja check " + out.resolve("simulated"))
                .doesNotContain("run 2 of at most");
        assertThat(out.resolve("simulated-report.json")).isRegularFile();
        assertThat(Files.exists(out.resolve("run-2"))).isFalse();
    }
}
