package dev.deja.examples.testing;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulatedStep;
import dev.deja.sim.SimulationResult;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.sim.StepObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

/**
 * Runs one node on the simulator, through the same {@code NodeRunner} and simulated {@code Platform} as
 * {@code deja simulate}, against peers that play a part the test wrote ({@link ScriptedPeer}), with the schedule
 * and the node's random draws scripted through the {@link ChoiceSource}.
 *
 * <p>Every pending event is enabled at every step (an exploration window longer than any timer), and the choice
 * source answers each scheduling choice: a delivery to a peer first, then the event the script expects next.
 * After each scripted event and the deliveries of what the node sent, the script's check runs with the node's
 * live object, what it sent since the last check and its pending timers. Where only one event is pending the
 * simulator runs it without asking; the observer then still insists that it was the expected one.
 */
public final class OneNodeRuns {
    private static final ThreadLocal<Scenario> CURRENT = new ThreadLocal<>();
    /** Longer than any timer of the examples, so that every pending event is enabled. */
    private static final long WINDOW_MILLIS = 1_000_000_000L;

    private OneNodeRuns() {
    }

    static Scenario current() {
        Scenario scenario = CURRENT.get();
        if (scenario == null) {
            throw new IllegalStateException(ScriptedPeer.class.getSimpleName() + " runs only inside OneNodeRuns");
        }
        return scenario;
    }

    /** A message a peer or the node under test sent. */
    public record Send(NodeId to, Object message) {
        public static Send to(String node, Object message) {
            return new Send(new NodeId(node), message);
        }
    }

    /** The part a scripted peer plays. */
    public interface Peer {
        /** A peer that sends nothing. */
        Peer SILENT = new Peer() {
        };

        /** What the peer sends when it starts. */
        default List<Send> onStart() {
            return List.of();
        }

        /** What the peer sends in answer to {@code message}. */
        default List<Send> onMessage(NodeId from, Object message) {
            return List.of();
        }

        /** Sends {@code sends} at start, answers nothing. */
        static Peer sending(Send... sends) {
            return new Peer() {
                @Override
                public List<Send> onStart() {
                    return List.of(sends);
                }
            };
        }

        /** Sends nothing at start and answers each message with {@code answer}. */
        static Peer answering(BiFunction<NodeId, Object, List<Send>> answer) {
            return new Peer() {
                @Override
                public List<Send> onMessage(NodeId from, Object message) {
                    return answer.apply(from, message);
                }
            };
        }
    }

    /** An event the node under test handles next. */
    public interface Expected {
        /** Whether {@code event} is it; {@code setAtMillis} is when the step that created it ran. */
        boolean matches(NodeId self, ChoicePoint.Enabled event, long setAtMillis);

        String description();
    }

    /** The delivery of a message of {@code type} from {@code from}; the earliest sent if several are pending. */
    public static Expected deliver(String from, Class<?> type) {
        return new Expected() {
            @Override
            public boolean matches(NodeId self, ChoicePoint.Enabled event, long setAtMillis) {
                return event.kind() == ChoicePoint.EventKind.DELIVERY && event.node().equals(self)
                        && event.from().value().equals(from) && event.messageType().equals(type.getSimpleName());
            }

            @Override
            public String description() {
                return "deliver " + type.getSimpleName() + " from " + from;
            }
        };
    }

    /** The firing of a timer the node set with {@code delayMillis}; the earliest due if several are pending. */
    public static Expected timer(long delayMillis) {
        return new Expected() {
            @Override
            public boolean matches(NodeId self, ChoicePoint.Enabled event, long setAtMillis) {
                return event.kind() == ChoicePoint.EventKind.TIMER && event.node().equals(self)
                        && event.dueMillis() - setAtMillis == delayMillis;
            }

            @Override
            public String description() {
                return "fire the " + delayMillis + " ms timer";
            }
        };
    }

    /** What a check may read after its event and the deliveries of what the node sent. */
    public interface Now {
        /** The node's live object. */
        Object node();

        /** What the node sent since the last call, in order. */
        List<Send> takeSent();

        /** The node's pending timers, cancelled ones left out. */
        List<ChoicePoint.Enabled> pendingTimers();

        /** Virtual milliseconds since the run began. */
        long virtualMillis();
    }

    /** What a finished scenario leaves: the node, what it sent after the last check, and every node's log lines. */
    public record Result(Object node, List<Send> sentAfterLastCheck, List<String> output) {
    }

    /** A scenario for node {@code id} of {@code type} with {@code args}. */
    public static Scenario node(String id, Class<? extends Node> type, Map<String, String> args) {
        return new Scenario(new NodeId(id), type, args);
    }

    /** Random bits that make {@code nextInt(bound)} return {@code value}. */
    public static long intBelow(int bound, int value) {
        boolean powerOfTwo = (bound & (bound - 1)) == 0;
        return verified((long) (powerOfTwo ? value : value << 1) << 32, r -> r.nextInt(bound), value);
    }

    /** Random bits that make {@code nextDouble()} return the largest double of its grid not above {@code value}. */
    public static long doubleOf(double value) {
        long grid = (long) (value * 0x1.0p53);
        return verified(grid << 11, r -> Double.doubleToLongBits(r.nextDouble()),
                Double.doubleToLongBits(grid * 0x1.0p-53));
    }

    /** Random bits that make {@code nextLong(origin, bound)} return {@code value}. */
    public static long longIn(long origin, long bound, long value) {
        long n = bound - origin;
        boolean powerOfTwo = (n & (n - 1)) == 0;
        return verified(powerOfTwo ? value - origin : (value - origin) << 1, r -> r.nextLong(origin, bound), value);
    }

    /** Random bits that make {@code nextLong(bound)} return {@code value}. */
    public static long longBelow(long bound, long value) {
        boolean powerOfTwo = (bound & (bound - 1)) == 0;
        return verified(powerOfTwo ? value : value << 1, r -> r.nextLong(bound), value);
    }

    /** Checks the inversion against the generator's own derivation, so that a JDK change fails loudly here. */
    private static long verified(long bits, ToLongFunction<RandomGenerator> draw, long expected) {
        RandomGenerator once = new RandomGenerator() {
            private boolean used;

            @Override
            public long nextLong() {
                if (used) {
                    throw new IllegalStateException("the draw needed more than one value");
                }
                used = true;
                return bits;
            }
        };
        long got = draw.applyAsLong(once);
        if (got != expected) {
            throw new IllegalStateException("random bits " + Long.toHexString(bits) + " gave " + got + ", not " + expected);
        }
        return bits;
    }

    /** One node, its scripted peers, its scripted draws and the events it handles in order. */
    public static final class Scenario {
        private final NodeId self;
        private final Class<? extends Node> type;
        private final Map<String, String> args;
        private final Map<NodeId, Peer> peers = new LinkedHashMap<>();
        private final Queue<Long> draws = new ArrayDeque<>();
        private boolean strictDraws = true;
        private long seed = 1;
        private final List<Expected> script = new ArrayList<>();
        private final List<Consumer<Now>> checks = new ArrayList<>();
        private final List<Send> sent = new ArrayList<>();
        private final Map<Long, Long> stepMillis = new HashMap<>();
        private StepObserver.View view;
        private int next;
        private boolean checkPending;

        private Scenario(NodeId self, Class<? extends Node> type, Map<String, String> args) {
            this.self = self;
            this.type = type;
            this.args = Map.copyOf(args);
        }

        /** Adds peer {@code id} playing {@code part}. */
        public Scenario peer(String id, Peer part) {
            peers.put(new NodeId(id), part);
            return this;
        }

        /** Adds silent peers. */
        public Scenario silentPeers(String... ids) {
            for (String id : ids) {
                peer(id, Peer.SILENT);
            }
            return this;
        }

        /** Queues the raw bits of the node's next random draws (see {@link #intBelow} and the others). */
        public Scenario draws(long... bits) {
            for (long value : bits) {
                draws.add(value);
            }
            return this;
        }

        /** Draws past the scripted ones come from a generator seeded with {@code value} instead of failing. */
        public Scenario seededDrawsAfterScript(long value) {
            strictDraws = false;
            seed = value;
            return this;
        }

        /** The node handles {@code event} next. */
        public Scenario then(Expected event) {
            return then(event, now -> { });
        }

        /** The node handles {@code event} next; {@code check} runs once what it sent has reached the peers. */
        public Scenario then(Expected event, Consumer<Now> check) {
            script.add(event);
            checks.add(check);
            return this;
        }

        Peer peer(NodeId id) {
            return peers.get(id);
        }

        void received(NodeId peer, NodeId from, Object message) {
            if (from.equals(self)) {
                sent.add(new Send(peer, message));
            }
        }

        /** Runs the scenario to its last scripted event and the check after it. */
        public Result run() {
            SimulationSettings.Builder builder = SimulationSettings.builder().node(self, type.getName(), args)
                    .seed(seed).delayMillis(1, 1).maxVirtualMillis(SimulationSettings.UNLIMITED_VIRTUAL_MILLIS)
                    .stop(SimulationSettings.Stop.AT_LIMIT);
            peers.keySet().forEach(id -> builder.node(id, ScriptedPeer.class.getName(), Map.of()));
            SimulationSettings settings = builder.build();
            List<String> output = new ArrayList<>();
            Simulator.Options options = Simulator.Options.of(settings).withNodeOutput(output::add)
                    .withChoices(new ScriptedChoices(ChoiceSource.seeded(seed)))
                    .withExploration(new Simulator.Exploration(WINDOW_MILLIS, false, false, 1))
                    .withObserver(this::afterStep);
            SimulationResult result;
            CURRENT.set(this);
            try {
                result = Simulator.runInMemory(settings, options);
            } finally {
                CURRENT.remove();
            }
            if (next < script.size() || checkPending) {
                throw new AssertionError("the run ended (" + result.ending() + ") before the script's step " + next
                        + " (" + (next < script.size() ? script.get(next).description() : "its check") + "); node output: "
                        + output);
            }
            return new Result(view == null ? null : view.liveNodes().get(self), List.copyOf(sent), List.copyOf(output));
        }

        private boolean afterStep(SimulatedStep step, StepObserver.View current) {
            view = current;
            stepMillis.put(step.step(), current.virtualMillis());
            if (step.node().equals(self)) {
                if (next >= script.size() || !script.get(next).matches(self, step.event(), setAt(step.event()))) {
                    throw new AssertionError("the node ran " + step.event().describe() + " where the script expects "
                            + (next < script.size() ? script.get(next).description() : "nothing more"));
                }
                next++;
                checkPending = true;
            }
            if (checkPending && current.pending().stream().noneMatch(this::toPeer)) {
                checkPending = false;
                checks.get(next - 1).accept(new Checked());
            }
            return next < script.size() || checkPending;
        }

        private long setAt(ChoicePoint.Enabled event) {
            return event.causeStep() < 0 ? 0 : stepMillis.get(event.causeStep());
        }

        private boolean toPeer(ChoicePoint.Enabled event) {
            return event.kind() == ChoicePoint.EventKind.DELIVERY && !event.node().equals(self);
        }

        /** The view a check reads. */
        private final class Checked implements Now {
            @Override
            public Object node() {
                return view.liveNodes().get(self);
            }

            @Override
            public List<Send> takeSent() {
                List<Send> out = List.copyOf(sent);
                sent.clear();
                return out;
            }

            @Override
            public List<ChoicePoint.Enabled> pendingTimers() {
                return view.pending().stream().filter(e -> e.kind() == ChoicePoint.EventKind.TIMER
                        && e.node().equals(self)).toList();
            }

            @Override
            public long virtualMillis() {
                return view.virtualMillis();
            }
        }

        /** Deliveries to peers first, then the script's next event; the node's draws from the script. */
        private final class ScriptedChoices implements ChoiceSource {
            private final ChoiceSource seeded;

            ScriptedChoices(ChoiceSource seeded) {
                this.seeded = seeded;
            }

            @Override
            public int pick(ChoicePoint point, int options) {
                if (!(point instanceof ChoicePoint.NextEvent choice)) {
                    return seeded.pick(point, options);
                }
                List<ChoicePoint.Enabled> events = choice.events();
                for (int i = 0; i < events.size(); i++) {
                    if (toPeer(events.get(i))) {
                        return i;
                    }
                }
                if (next >= script.size()) {
                    throw new AssertionError("the script is done but the simulator asks what runs next among "
                            + events.stream().map(ChoicePoint.Enabled::describe).toList());
                }
                Expected expected = script.get(next);
                Optional<Integer> match = Optional.empty();
                for (int i = 0; i < events.size(); i++) {
                    ChoicePoint.Enabled event = events.get(i);
                    if (expected.matches(self, event, setAt(event)) && (match.isEmpty()
                            || earlier(event, events.get(match.get())))) {
                        match = Optional.of(i);
                    }
                }
                return match.orElseThrow(() -> new AssertionError("script step " + next + ": " + expected.description()
                        + " is not pending; pending: " + events.stream().map(ChoicePoint.Enabled::describe).toList()));
            }

            private static boolean earlier(ChoicePoint.Enabled a, ChoicePoint.Enabled b) {
                return a.dueMillis() != b.dueMillis() ? a.dueMillis() < b.dueMillis() : a.id() < b.id();
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                return seeded.chance(point, probability);
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                return seeded.between(point, min, max);
            }

            @Override
            public long bits(ChoicePoint point) {
                if (point instanceof ChoicePoint.RandomDraw draw && draw.node().equals(self)) {
                    Long scripted = draws.poll();
                    if (scripted != null) {
                        return scripted;
                    }
                    if (strictDraws) {
                        throw new AssertionError("node " + self + " drew a random value the test did not script");
                    }
                }
                return seeded.bits(point);
            }
        }
    }
}
