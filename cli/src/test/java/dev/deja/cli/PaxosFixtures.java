package dev.deja.cli;

import dev.deja.check.testing.ExampleRuns;
import dev.deja.examples.paxos.PaxosExample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The README's Paxos trace and scripts over it, for the tests of the check command in and out of the warm engine. */
public final class PaxosFixtures {
    /** The shipped Paxos script, from a module's directory. */
    public static final String SCRIPT = Path.of("..").resolve(new PaxosExample().script().orElseThrow()).toString();

    private PaxosFixtures() {
    }

    /**
     * Simulates the README's trace in {@code directory}: seed 22 in the paper's setting, which shows the latest-response
     * bug (see CheckerPaxosIT) as one violation of global_consistency at position 3224.
     */
    public static Path readmeTrace(Path directory) {
        return ExampleRuns.simulate(directory, "paxos", 7, Optional.of("latest-response"), 22,
                settings -> settings.dropProbability(0.3).delayMillis(1, 100)).trace();
    }

    /**
     * Writes {@code file}: the shipped script plus a predicate that sleeps 1 ms at each of the first 2,000 events, so
     * that an interpreted check's pace is judged within them (see JitRestart).
     */
    public static Path slowAtFirstScript(Path file) throws IOException {
        return Files.writeString(file, Files.readString(Path.of(SCRIPT)) + """

                import time
                from deja import event

                @always
                def slow_at_first():
                    if event.position < 2000:
                        time.sleep(0.001)
                    return True
                """);
    }

    /** A copy of {@code trace} at {@code target}, without its check history, for a test to check as its own. */
    public static Path copyOf(Path trace, Path target) {
        try (var files = Files.walk(trace)) {
            for (Path file : files.toList()) {
                String relative = trace.relativize(file).toString();
                if (!relative.equals("check") && !relative.startsWith("check/")) {
                    Files.copy(file, target.resolve(relative));
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return target;
    }
}
