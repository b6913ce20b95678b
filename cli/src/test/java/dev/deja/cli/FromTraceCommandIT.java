package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --from TRACE --at POSITION} on the command line: {@code simulate --from} continues a recorded Paxos run into
 * a trace that {@code deja replay} replays without divergence; bad positions and option combinations exit 2 with one
 * line naming what was wrong. (The search itself is tested in the explorer's ExploreFromTraceIT.)
 */
class FromTraceCommandIT {
    @TempDir
    static Path work;

    private static Path recorded;

    @BeforeAll
    static void record() {
        recorded = work.resolve("recorded");
        CliRun.Output simulated = CliRun.run("simulate", "paxos", "--nodes", "3", "--bug", "latest-response", "--seed", "3",
                "--drop", "0.3", "--delay", "1ms..100ms", "--out", recorded.toString());
        assertThat(simulated.status()).as(simulated.out() + simulated.err()).isZero();
    }

    @Test
    void simulateFrom_aMidRunPosition_writesATraceThatReplays() {
        Path continued = work.resolve("continued");
        CliRun.Output simulated = CliRun.run("simulate", "--from", recorded.toString(), "--at", "40", "--seed", "5",
                "--drop", "0.3", "--delay", "1ms..100ms", "--out", continued.toString());
        assertThat(simulated.status()).as(simulated.out() + simulated.err()).isZero();
        assertThat(simulated.out()).contains("rebuilt the state of " + recorded + " at position 40 by replaying 13 of its")
                .contains("simulated the state of " + recorded + " at position 40");
        CliRun.Output replayed = CliRun.run("replay", continued.toString());
        assertThat(replayed.status()).as(replayed.out() + replayed.err()).isZero();
    }

    @Test
    void exploreFrom_positionOutOfRange_exits2NamingTheTraceAndTheRange() {
        CliRun.Output explored = CliRun.run("explore", "--from", recorded.toString(), "--at", "100000", "--paths", "1",
                "--out", work.resolve("out-of-range").toString());
        assertThat(explored.status()).isEqualTo(2);
        assertThat(explored.err().strip()).doesNotContain("\n").contains(recorded.toString())
                .contains("position 100000 is out of range").contains("positions 0 to ");
    }

    @Test
    void exploreAt_withoutFrom_exits2() {
        CliRun.Output explored = CliRun.run("explore", "paxos", "--at", "5", "--paths", "1",
                "--out", work.resolve("no-from").toString());
        assertThat(explored.status()).isEqualTo(2);
        assertThat(explored.err()).contains("--at 5 needs --from TRACE");
    }

    @Test
    void exploreFrom_withoutAt_exits2() {
        CliRun.Output explored = CliRun.run("explore", "--from", recorded.toString(), "--paths", "1",
                "--out", work.resolve("no-at").toString());
        assertThat(explored.status()).isEqualTo(2);
        assertThat(explored.err()).contains("needs --at POSITION");
    }

    @Test
    void exploreFrom_aMissingTrace_exits2() {
        CliRun.Output explored = CliRun.run("explore", "--from", work.resolve("nothing").toString(), "--at", "3",
                "--paths", "1", "--out", work.resolve("missing").toString());
        assertThat(explored.status()).isEqualTo(2);
        assertThat(explored.err()).contains("no such trace directory");
    }
}
