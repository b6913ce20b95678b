package dev.deja.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.deja.check.CheckReport;
import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.Example;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The JSON-dump baseline is only a fair comparison if it checks the same thing: on runs where the Paxos bugs
 * show (the checker tests' seeds), the CPython checker over the state dumps finds exactly the violations, at
 * exactly the positions, that {@code deja check} with {@code scripts/paxos.py} finds.
 */
class JsonDumpBaselineIT {
    private static final Path HOME = Path.of("..");

    @TempDir
    Path temporary;

    @ParameterizedTest(name = "bug {0}, seed {1}")
    @CsvSource({"latest-response, 22", "spec, 3", ", 22"})
    void check_ofTheDumps_findsWhatDejaFinds(String bug, long seed) throws Exception {
        assumeTrue(JsonDumpBaseline.python().isPresent(), "python3 is not on the PATH");
        Example paxos = ExampleRuns.example("paxos");
        Path trace = ExampleRuns.simulate(temporary, "paxos", 7, Optional.ofNullable(bug), seed,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
        CheckReport report = ExampleRuns.check(trace, "paxos");
        Set<String> deja = JsonDumpBaseline.dejaFindings(report.violations());
        if (bug != null) {
            assertThat(deja).as("the %s bug shows on seed %d", bug, seed).isNotEmpty();
        }

        Path dumps = temporary.resolve("dumps");
        JsonDumpBaseline.dump(trace, dumps);
        Path script = JsonDumpBaseline.script(HOME, paxos).orElseThrow();
        Set<String> python = new TreeSet<>(JsonDumpBaseline.check(script, dumps));

        assertThat(python).as("CPython over the dumps vs deja check, bug %s seed %d", bug, seed).isEqualTo(deja);
    }
}
