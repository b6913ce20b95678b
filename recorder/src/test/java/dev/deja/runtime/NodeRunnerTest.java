package dev.deja.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.testing.ManualPlatform;
import dev.deja.trace.Event;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceSink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeRunnerTest {
    record Hello(int round) {
    }

    /** Exercises every Env operation. */
    public static final class Probe implements Node {
        TimerId kept;
        Env saved;

        @Override
        public void onStart(Env env) {
            saved = env;
            env.storage().read("state");
            env.storage().write("state", "one".getBytes(StandardCharsets.UTF_8));
            kept = env.setTimer(Duration.ofMillis(100), "keep");
            TimerId cancelled = env.setTimer(Duration.ofMillis(50), "cancel");
            env.cancelTimer(cancelled);
            env.send(new NodeId("n2"), new Hello(env.random().nextInt(10)));
        }

        @Override
        public void onMessage(Env env, NodeId from, Object message) {
            env.nowMillis();
            env.send(from, new Hello(((Hello) message).round() + 1));
        }

        @Override
        public void onTimer(Env env, TimerId timer, Object tag) {
            env.log("timer " + tag);
            env.storage().read("state");
        }
    }

    private final NodeId self = new NodeId("n1");
    private final ManualPlatform platform = new ManualPlatform(Set.of(new NodeId("n2")));
    private final List<TraceEvent> recorded = new ArrayList<>();
    private final MessageCodec codec = MessageCodec.defaultCodec();

    private NodeRunner runner(Node node, long initialLamport, long firstSeq, int crashed) {
        return new NodeRunner(node, new NodeRunner.Setup(self, List.of(new NodeId("n2")), Map.of("bug", "x"),
                crashed + 1, initialLamport, firstSeq, crashed), platform, codec, recorded::add);
    }

    @Test
    void start_recordsStartThenEveryInputOfTheHandler() {
        NodeRunner runner = runner(new Probe(), 0, 0, 0);
        runner.start();
        assertThat(recorded).extracting(e -> e.event().typeName())
                .containsExactly("start", "storage-read", "random", "send");
        assertThat(recorded.get(0).event()).isEqualTo(new Event.Start(Probe.class.getName(), Map.of("bug", "x"),
                List.of(new NodeId("n2"))));
        assertThat(recorded.get(1).event()).isEqualTo(new Event.StorageRead("state", null));
        assertThat(recorded.get(2).event()).isEqualTo(new Event.RandomDraw(42));
        Event.Send send = (Event.Send) recorded.get(3).event();
        ManualPlatform.Transmitted sent = platform.transmitted.getFirst();
        assertThat(send.to()).isEqualTo(new NodeId("n2"));
        assertThat(send.messageId()).isEqualTo(sent.messageId());
        assertThat(send.digest()).isEqualTo(MessageCodec.digest(sent.message()));
        assertThat(sent.senderLamport()).isEqualTo(recorded.get(3).lamport());
        assertThat(platform.timers).hasSize(1).containsKey(1L);
    }

    @Test
    void deliver_setsLamportPastTheCarriedClock() {
        NodeRunner runner = runner(new Probe(), 0, 0, 0);
        runner.start();
        runner.deliver(new NodeId("n2"), 100, 7, codec.encode(new Hello(3)));
        TraceEvent receive = recorded.get(4);
        assertThat(receive.event()).isInstanceOf(Event.Receive.class);
        assertThat(receive.lamport()).isEqualTo(101);
        assertThat(recorded.get(5).event()).isEqualTo(new Event.ClockRead(1_000));
        assertThat(codec.decode(platform.transmitted.get(1).message())).isEqualTo(new Hello(4));
    }

    @Test
    void events_haveContiguousSeqAndIncreasingLamport() {
        NodeRunner runner = runner(new Probe(), 0, 0, 0);
        runner.start();
        runner.deliver(new NodeId("n2"), 1, 7, codec.encode(new Hello(3)));
        runner.fireTimer(new TimerId(1));
        runner.deliver(new NodeId("n2"), 2, 8, codec.encode(new Hello(5)));
        for (int i = 0; i < recorded.size(); i++) {
            assertThat(recorded.get(i).seq()).isEqualTo(i);
            if (i > 0) {
                assertThat(recorded.get(i).lamport()).isGreaterThan(recorded.get(i - 1).lamport());
            }
        }
    }

    @Test
    void fireTimer_ignoresCancelledAndAlreadyFiredTimers() {
        NodeRunner runner = runner(new Probe(), 0, 0, 0);
        runner.start();
        int before = recorded.size();
        runner.fireTimer(new TimerId(2)); // cancelled in onStart
        assertThat(recorded).hasSize(before);
        runner.fireTimer(new TimerId(1));
        assertThat(recorded.get(before).event()).isEqualTo(new Event.TimerFired(1, codec.encode("keep")));
        int after = recorded.size();
        runner.fireTimer(new TimerId(1));
        assertThat(recorded).hasSize(after);
        assertThat(platform.lines).contains("n1/1: timer keep");
    }

    @Test
    void start_afterACrash_recordsTheCrashFirstAndContinuesSeqAndLamport() {
        NodeRunner runner = runner(new Probe(), 50, 20, 1);
        runner.start();
        assertThat(recorded.get(0).event()).isEqualTo(new Event.Crash(1));
        assertThat(recorded.get(0).seq()).isEqualTo(20);
        assertThat(recorded.get(0).lamport()).isEqualTo(51);
        assertThat(recorded.get(1).event()).isInstanceOf(Event.Start.class);
        assertThat(recorded.get(1).incarnation()).isEqualTo(2);
    }

    @Test
    void everyDispatch_isOneHandlerCallOfTheSink() {
        List<String> calls = new ArrayList<>();
        TraceSink sink = new TraceSink() {
            @Override
            public void append(TraceEvent event) {
                calls.add(event.event().typeName());
            }

            @Override
            public void beginHandler() {
                calls.add("[");
            }

            @Override
            public void endHandler() {
                calls.add("]");
            }
        };
        NodeRunner runner = new NodeRunner(new Probe(), new NodeRunner.Setup(self, List.of(new NodeId("n2")), Map.of(),
                2, 10, 5, 1), platform, codec, sink);
        runner.start();
        runner.deliver(new NodeId("n2"), 1, 7, codec.encode(new Hello(3)));
        runner.fireTimer(new TimerId(2)); // cancelled: no call
        runner.fireTimer(new TimerId(1));
        assertThat(String.join(" ", calls)).isEqualTo("[ crash start storage-read random send ] [ receive clock send ]"
                + " [ timer storage-read ]");
    }

    @Test
    void env_refusesUseOutsideAHandler() {
        Probe probe = new Probe();
        runner(probe, 0, 0, 0).start();
        assertThatThrownBy(() -> probe.saved.send(new NodeId("n2"), new Hello(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("outside a handler");
    }

    @Test
    void send_toAnUnknownNode_failsInsideTheHandlerAndIsNotRecorded() {
        Node node = new Node() {
            @Override
            public void onStart(Env env) {
                env.send(new NodeId("nobody"), new Hello(1));
            }

            @Override
            public void onMessage(Env env, NodeId from, Object message) {
            }
        };
        runner(node, 0, 0, 0).start();
        assertThat(recorded).extracting(e -> e.event().typeName()).containsExactly("start");
        assertThat(platform.lines).anyMatch(line -> line.contains("cannot send to unknown node nobody"));
    }

    @Test
    void random_recordsEveryDrawEvenThroughDerivedMethods() {
        Node node = new Node() {
            @Override
            public void onStart(Env env) {
                env.random().nextInt(100);
                env.random().nextDouble();
                env.random().nextBoolean();
            }

            @Override
            public void onMessage(Env env, NodeId from, Object message) {
            }
        };
        runner(node, 0, 0, 0).start();
        assertThat(recorded.stream().filter(e -> e.event() instanceof Event.RandomDraw).count())
                .isEqualTo(platform.nextRandom - 42);
    }
}
