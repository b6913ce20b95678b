package dev.deja.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.deja.check.Checker;
import dev.deja.cli.JitRestart;
import dev.deja.cli.PaxosFixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the warm engine runs a check, in this JVM (which has the Graal JIT, as the engine's has): its predicates start
 * interpreted, in the engine that never compiles, and a check whose predicates turn out heavy starts again with the JIT
 * (see CheckCommand.checkOnceInterpretedFirst), as the launcher does with a one-shot check.
 */
class DaemonServerIT {
    private static final String SCRIPT = PaxosFixtures.SCRIPT;

    @TempDir
    static Path temporary;

    private static Path buggy;

    @BeforeAll
    static void record() {
        buggy = PaxosFixtures.readmeTrace(temporary);
    }

    @Test
    void execute_check_runsThePredicatesInterpreted() throws Exception {
        assumeThat(Checker.pythonJit()).as("this JVM has the Graal JIT").isTrue();
        // With a day allowed for the events left: whether the check would start again with the JIT depends on its
        // pace, which depends on the machine's load (the restart is the next test's).
        Answer answer = executeAllowing(java.util.concurrent.TimeUnit.DAYS.toMillis(1), "check",
                copy(buggy, "plain").toString(), SCRIPT);
        assertThat(answer.status()).as(answer.err()).isEqualTo(1);
        assertThat(answer.out()).contains("global_consistency").contains(": 1 violation");
        assertThat(answer.err()).contains("replayed the trace").contains("; Python predicates interpreted (")
                .doesNotContain("starts again");
        assertThat(System.getProperty(Checker.PYTHON_INTERPRETED_PROPERTY)).as("cleared after the command").isNull();
    }

    @Test
    void execute_checkWithHeavyPredicates_startsAgainWithTheJit_andGivesTheReport() throws Exception {
        assumeThat(Checker.pythonJit()).as("this JVM has the Graal JIT").isTrue();
        // With no time allowed for the events left, the interpreted check asks for the JIT once the pace is judged.
        Path slow = PaxosFixtures.slowAtFirstScript(temporary.resolve("slow.py"));
        Path trace = copy(buggy, "restart");
        Answer answer = executeAllowing(0, "check", trace.toString(), slow.toString());
        assertThat(answer.status()).as(answer.err()).isEqualTo(1);
        assertThat(answer.err().split("so the check starts again with the Graal JIT", -1)).as(answer.err()).hasSize(2);
        assertThat(answer.err()).contains("ms per event interpreted")
                .contains("replayed the trace").contains("; Python predicates compiled by the Graal JIT");
        assertThat(answer.out()).contains("global_consistency").contains(": 1 violation");
    }

    /** {@link #execute} with {@code remainingMillis} allowed for a check's events left before it restarts with the JIT. */
    private static Answer executeAllowing(long remainingMillis, String... arguments) throws IOException {
        System.setProperty(JitRestart.REMAINING_PROPERTY, Long.toString(remainingMillis));
        try {
            return execute(arguments);
        } finally {
            System.clearProperty(JitRestart.REMAINING_PROPERTY);
        }
    }

    private static Protocol.Request request(Map<String, String> environment, String... arguments) {
        return new Protocol.Request(Protocol.Kind.RUN, "a build", System.getProperty("user.dir"), environment, false,
                "UTF-8", "UTF-8", List.of(arguments));
    }

    /** What the engine sent for a command line: standard output, standard error and the exit status. */
    private record Answer(String out, String err, int status) {
    }

    private static Answer execute(String... arguments) throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        DaemonServer.Frames frames = new DaemonServer.Frames(new DataOutputStream(sent));
        DaemonServer.Result result = DaemonServer.execute(request(Map.of(), arguments), frames);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(sent.toByteArray()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        for (Protocol.Frame frame; (frame = Protocol.Frame.read(in)) != null; ) {
            (frame.type() == Protocol.OUT ? out : err).write(frame.bytes());
        }
        return new Answer(out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), result.status());
    }

    /** A copy of the recorded trace {@code trace} named {@code name}, without the history of any check. */
    private static Path copy(Path trace, String name) {
        return PaxosFixtures.copyOf(trace, temporary.resolve(name));
    }
}
