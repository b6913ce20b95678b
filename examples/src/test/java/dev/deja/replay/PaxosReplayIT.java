package dev.deja.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.ExampleDeployment;
import dev.deja.examples.paxos.PaxosExample;
import dev.deja.node.NodeId;
import dev.deja.runtime.Deployment;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records a real seven-process Paxos deployment (the paper's setting: 30% message loss) and a {@code kill -9} and restart, then
 * replays it: no divergence, every incarnation replayed, and the same listener calls on a second replay.
 */
class PaxosReplayIT {
    private static final NodeId N2 = new NodeId("n2");

    @TempDir
    static Path temporary;

    private static Path trace;

    @BeforeAll
    static void recordDeployment() throws Exception {
        trace = temporary.resolve("trace");
        Deployment.Plan plan = ExampleDeployment.builder(new PaxosExample()).nodes(7).dropProbability(0.3)
                .maxExtraDelay(Duration.ofMillis(5)).duration(Duration.ofSeconds(4))
                .kill(N2, Duration.ofMillis(600)).restart(N2, Duration.ofMillis(1000))
                .record(trace).workDirectory(temporary.resolve("work")).command("PaxosReplayIT").build().plan();
        new Deployment(plan, System.out).run();
    }

    @Test
    void replay_ofAPaxosDeploymentWithAKill_hasNoDivergence() {
        List<String> incarnationsSeen = new ArrayList<>();
        long[] crashes = {0};
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (event.entry().event() instanceof Event.Crash) {
                        crashes[0]++;
                    }
                    if (event.entry().event() instanceof Event.Start && event.entry().node().equals(N2)) {
                        incarnationsSeen.add(state.incarnation(N2) + ":" + state.node(N2).map(n -> n.getClass().getSimpleName()).orElse("-"));
                    }
                }));
        System.out.printf("PaxosReplayIT: replayed %d entries (%d handler calls) of %d nodes in %.3f s (%.0f entries/s)%n",
                result.entries(), result.handlerCalls(), result.nodes(), result.elapsed().toNanos() / 1e9,
                result.entriesPerSecond());
        result.divergences().forEach(d -> System.out.println(d.describe()));
        assertThat(result.divergences()).isEmpty();
        assertThat(result.nodes()).isEqualTo(7);
        assertThat(crashes[0]).as("n2 was killed and restarted").isEqualTo(1);
        assertThat(incarnationsSeen).containsExactly("1:PaxosNode", "2:PaxosNode");
    }

    @Test
    void replay_twice_givesIdenticalListenerCalls() {
        assertThat(listenerCalls()).isEqualTo(listenerCalls());
    }

    private static List<String> listenerCalls() {
        List<String> calls = new ArrayList<>();
        ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> calls.add(position + " " + event
                        + " " + state.nodes().keySet() + " " + state.incarnation(N2))));
        assertThat(result.divergences()).isEmpty();
        return calls;
    }
}
