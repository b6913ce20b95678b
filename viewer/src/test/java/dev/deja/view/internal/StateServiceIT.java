package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.paxos.PaxosNode;
import dev.deja.node.Node;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state service on a simulated five-node Paxos run: right states, and replays only when needed. */
class StateServiceIT {
    private static final int NODES = 5;
    private static final long SEED = 11;

    @TempDir
    static Path temporary;
    private static Trace trace;
    private static TraceModel model;
    /** The rendered state of the node at every handler position, from one plain replay (the oracle). */
    private static final Map<Integer, ObjectTree> expected = new HashMap<>();

    @BeforeAll
    static void simulate() {
        Path directory = SimulatedRuns.paxos(temporary.resolve("paxos"), NODES, SEED);
        trace = Trace.open(directory);
        model = TraceModel.open(trace);
        Replayer.replay(trace, Replayer.Options.defaults().withListener((event, position, state) -> {
            if (event.startedHandler()) {
                Node node = state.node(event.entry().node()).orElse(null);
                if (node instanceof PaxosNode) {
                    expected.put((int) position, ObjectTrees.render(event.entry().node().value(), node));
                }
            }
        }));
        System.out.printf("StateServiceIT: %d entries, %d handler calls; the trace is made by: %s%n", model.size(),
                expected.size(), SimulatedRuns.command(NODES, SEED));
    }

    private static StateService.NodeState state(StateService service, int position) throws Exception {
        return service.request(position).get().orElseThrow();
    }

    @Test
    void request_atEveryTenthEntry_givesTheReplayedNodesStateAfterItsHandler() throws Exception {
        try (StateService service = new StateService(trace, model, StateServiceIT.class.getClassLoader())) {
            for (int position = 0; position < model.size(); position += 10) {
                StateService.NodeState state = state(service, position);
                int handler = service.handlerOf(position);
                assertThat(state.handler()).isEqualTo(handler);
                if (handler >= 0 && expected.containsKey(handler)) {
                    assertThat(state.after()).as("state after %d (handler %d)", position, handler).isEqualTo(expected.get(handler));
                    if (state.previous() >= 0 && expected.containsKey(state.previous())) {
                        assertThat(state.before()).isEqualTo(expected.get(state.previous()));
                    }
                }
            }
            assertThat(service.replaysStarted()).as("walking forward needs one replay").isEqualTo(1);
        }
    }

    @Test
    void request_steppingBackNearby_isAnsweredFromMemory_butFarBackReplaysAgain() throws Exception {
        int last = model.size() - 1;
        int window = 20;
        assertThat(last).as("the run is long enough to leave the remembered window").isGreaterThan(4 * window);
        try (StateService service = new StateService(trace, model, StateServiceIT.class.getClassLoader(), window)) {
            StateService.NodeState end = state(service, last);
            assertThat(end.fromCache()).isFalse();
            int back = model.previousOnLane(model.previousOnLane(last));
            StateService.NodeState near = state(service, back);
            assertThat(near.fromCache()).as("two entries back on the node").isTrue();
            assertThat(near.after()).isEqualTo(expected.get(near.handler()));
            assertThat(service.replaysStarted()).isEqualTo(1);

            StateService.NodeState far = state(service, last - 3 * window);
            assertThat(far.fromCache()).as("before the remembered window").isFalse();
            assertThat(service.replaysStarted()).isEqualTo(2);
            assertThat(far.after()).isEqualTo(expected.get(far.handler()));

            // A little further on is reached by the same replay (it runs on ahead after answering; whether it got
            // there before the request is a matter of timing, so only the count of replays is checked).
            int ahead = last - 3 * window + window / 2;
            StateService.NodeState forward = state(service, ahead);
            assertThat(forward.after()).isEqualTo(expected.get(forward.handler()));
            assertThat(service.replaysStarted()).as("forward from the paused replay").isEqualTo(2);
        }
    }

    @Test
    void request_beforeTheNodesFirstEntry_saysItHasNotStarted() throws Exception {
        try (StateService service = new StateService(trace, model, StateServiceIT.class.getClassLoader())) {
            // The first entry of each node is its start; an entry of the node before it does not exist, so ask for
            // the start itself and check it is its own handler with nothing before.
            int start = model.positionOf(0, 0);
            StateService.NodeState state = state(service, start);
            assertThat(state.handler()).isEqualTo(start);
            assertThat(state.previous()).isEqualTo(-1);
            assertThat(state.before()).isNull();
            assertThat(state.after()).isNotNull();
        }
    }
}
