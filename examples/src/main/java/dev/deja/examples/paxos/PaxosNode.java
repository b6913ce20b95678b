package dev.deja.examples.paxos;

import dev.deja.examples.ExampleArguments;
import dev.deja.node.Env;
import dev.deja.node.ForwardingEnv;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Paxos process that is both a leader and an agent, following the WiDS Checker paper (section 4.1).
 *
 * <p>Leader: sleeps a random period, starts a round with a number from its own disjoint set (greater than
 * any round it has seen), sends {@link Collect} to every agent, and once a majority answered with
 * {@link Last} sends {@link Begin} with the value of the highest-numbered accepted round among the answers
 * (or its own value). It keeps starting rounds until it learns a decision from a majority of
 * {@link Accepted} messages for one round.
 *
 * <p>Agent: answers a {@link Collect} with a higher round than any it answered before, and accepts a
 * {@link Begin} unless it answered a higher-numbered {@link Collect}. Its state is synced to storage before
 * it replies, so a restarted incarnation keeps its promises.
 *
 * <p>Slots ({@code slots} argument, default 1): a node can run several independent single-decree instances at once
 * (a replicated log without a stable leader), one object of this class per slot, each with its own rounds, storage
 * keys and timers; messages name their slot. A deployment then gives each bug many chances in one run. The node
 * answers the client's {@link Query} once every slot is decided.
 *
 * <p>Bugs ({@code bug} argument): {@code latest-response} makes the leader submit the value of the latest
 * received answer that carries one; {@code spec} follows the published specification, whose agent keeps the
 * accepted round apart from the answered-Collect round, so its accepted round can decrease.
 */
public final class PaxosNode implements Node {
    /** The bugs this node understands, name to description, in CLI order. */
    static final Map<String, String> BUGS = bugs();

    private static final String NEXT_ROUND_TAG = "next-round";
    private static final long DEFAULT_MIN_SLEEP_MILLIS = 50;
    private static final long DEFAULT_MAX_SLEEP_MILLIS = 300;
    private static final String COLLECT_ROUND_KEY = "agent.collectRound";
    private static final String ACCEPTED_ROUND_KEY = "agent.acceptedRound";
    private static final String ACCEPTED_VALUE_KEY = "agent.acceptedValue";
    private static final String LEADER_ROUND_KEY = "leader.round";
    private static final int MAX_SLOTS = 1000;

    // Which consensus instance this object runs: 0 for the node itself; a node with slots=K hosts the
    // instances 1..K-1 as child objects of this class, each with its own storage keys and timers.
    private final int slot;
    private final TreeMap<Integer, PaxosNode> otherSlots = new TreeMap<>();
    // The timers the other slots set, so the node can hand each firing to its slot.
    private final Map<TimerId, Integer> slotTimers = new HashMap<>();

    // How long a leader sleeps before starting another round: argument sleep=MIN..MAX (milliseconds).
    private long minSleepMillis;
    private long maxSleepMillis;
    private boolean latestResponseBug;
    private boolean specBug;
    private List<NodeId> allNodes;
    private int majority;
    private int selfIndex;

    // Agent state, durable.
    private long collectRound;
    private long acceptedRound;
    private String acceptedValue;

    // Leader state. Only the highest started round is durable, so a restart never reuses a round number
    // (two Begin messages of one round with different values would break agreement).
    private long currentRound;
    private long highestRoundSeen;
    private String ownValue;
    private String decidedValue;
    private long decidedRound;
    private final Set<NodeId> responders = new HashSet<>();
    private String highestResponseValue;
    private long highestResponseRound;
    private String latestResponseValue;
    // Whether this incarnation is still collecting Last answers for currentRound: not after its Begin, nor for
    // a round recovered from storage, whose Begin the previous incarnation may have sent with another value.
    private boolean collecting;
    private TimerId roundTimer;

    // Learner state: round to the agents that reported accepting it (one value per round, one leader per round).
    private final TreeMap<Long, Map<NodeId, String>> acceptances = new TreeMap<>();

    public PaxosNode() {
        this(0);
    }

    private PaxosNode(int slot) {
        this.slot = slot;
    }

    private static Map<String, String> bugs() {
        Map<String, String> bugs = new LinkedHashMap<>();
        bugs.put("latest-response", "the leader submits the value of the latest received Last response instead of "
                + "the one from the highest-numbered round (the paper's implementation bug)");
        bugs.put("spec", "agents follow the published specification, which lets an agent's accepted round "
                + "decrease after it accepts a Begin without the matching Collect (the paper's specification bug)");
        return Collections.unmodifiableMap(bugs);
    }

    @Override
    public void onStart(Env env) {
        String bug = env.args().get("bug");
        if (bug != null && !BUGS.containsKey(bug)) {
            throw new IllegalArgumentException("unknown Paxos bug '" + bug + "'; valid bugs: "
                    + String.join(", ", BUGS.keySet()));
        }
        latestResponseBug = "latest-response".equals(bug);
        long[] sleep = sleepRange(env.args().get("sleep"));
        minSleepMillis = sleep[0];
        maxSleepMillis = sleep[1];
        specBug = "spec".equals(bug);

        List<NodeId> nodes = new ArrayList<>(env.peers());
        nodes.add(env.self());
        nodes.sort(null);
        allNodes = List.copyOf(nodes);
        majority = allNodes.size() / 2 + 1;
        selfIndex = allNodes.indexOf(env.self());

        if (slot == 0) {
            startOtherSlots(env);
        }
        Storage storage = env.storage();
        collectRound = readLong(storage, COLLECT_ROUND_KEY);
        acceptedRound = readLong(storage, ACCEPTED_ROUND_KEY);
        acceptedValue = storage.read(ACCEPTED_VALUE_KEY).map(PaxosNode::string).orElse(null);
        currentRound = readLong(storage, LEADER_ROUND_KEY);
        highestRoundSeen = Math.max(currentRound, Math.max(collectRound, acceptedRound));
        if (env.incarnation() > 1) {
            env.log((slot == 0 ? "" : "slot " + slot + ": ") + "recovered collectRound=" + collectRound + " acceptedRound=" + acceptedRound
                    + " acceptedValue=" + acceptedValue + " leaderRound=" + currentRound);
        }
        sleepBeforeNextRound(env);
    }

    /** Creates and starts the instances 1..K-1 of argument {@code slots=K} (default 1: this node only). */
    private void startOtherSlots(Env env) {
        int slots = slotCount(env.args().get("slots"));
        for (int other = 1; other < slots; other++) {
            otherSlots.put(other, new PaxosNode(other));
        }
        otherSlots.forEach((other, instance) -> instance.onStart(new SlotEnv(env, other)));
    }

    static int slotCount(String text) {
        return ExampleArguments.intFromTo("Paxos", "slots", text, 1, 1, MAX_SLOTS, "consensus instances");
    }

    /** The decided value of every slot, or null while some slot is undecided. */
    private String decidedInEverySlot() {
        for (PaxosNode instance : otherSlots.values()) {
            if (instance.decidedValue == null) {
                return null;
            }
        }
        return decidedValue;
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        int target = switch (message) {
            case Collect collect -> collect.slot();
            case Last last -> last.slot();
            case Begin begin -> begin.slot();
            case Accepted accepted -> accepted.slot();
            default -> 0;
        };
        if (target != slot) {
            PaxosNode instance = otherSlots.get(target);
            if (instance == null) {
                env.log("ignored a " + message.getClass().getSimpleName() + " for unknown slot " + target + " from " + from);
            } else {
                instance.onMessage(new SlotEnv(env, target), from, message);
            }
            return;
        }
        switch (message) {
            case Collect collect -> onCollect(env, from, collect);
            case Last last -> onLast(env, from, last);
            case Begin begin -> onBegin(env, from, begin);
            case Accepted accepted -> onAccepted(env, from, accepted);
            case Propose propose -> onPropose(env, from, propose);
            case Query _ -> {
                String decided = decidedInEverySlot();
                if (decided != null) {
                    env.send(from, new Decided(decided));
                }
            }
            default -> env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        Integer target = slotTimers.remove(timer);
        if (target != null) {
            otherSlots.get(target).onTimer(new SlotEnv(env, target), timer, tag);
            return;
        }
        if (NEXT_ROUND_TAG.equals(tag) && timer.equals(roundTimer)) {
            roundTimer = null;
            if (decidedValue == null) {
                startRound(env);
                sleepBeforeNextRound(env);
            }
        }
    }

    // ---- Leader ----

    private void sleepBeforeNextRound(Env env) {
        if (decidedValue == null) {
            long sleepMillis = env.random().nextLong(minSleepMillis, maxSleepMillis + 1);
            roundTimer = env.setTimer(Duration.ofMillis(sleepMillis), NEXT_ROUND_TAG);
        }
    }

    /** Step 1: starts a round numbered above every round seen and sends Collect to every agent. */
    private void startRound(Env env) {
        currentRound = nextRoundAbove(highestRoundSeen);
        highestRoundSeen = currentRound;
        responders.clear();
        highestResponseRound = 0;
        highestResponseValue = null;
        latestResponseValue = null;
        collecting = true;
        env.storage().write(LEADER_ROUND_KEY, bytes(Long.toString(currentRound)));
        env.storage().sync();
        for (NodeId agent : allNodes) {
            env.send(agent, new Collect(slot, currentRound));
        }
    }

    /** The smallest round of this leader's set ({@code k * N + index + 1}) greater than {@code round}. */
    private long nextRoundAbove(long round) {
        long first = selfIndex + 1;
        if (first > round) {
            return first;
        }
        int nodeCount = allNodes.size();
        return first + ((round - first) / nodeCount + 1) * nodeCount;
    }

    /** Step 3: once a majority answered the current round, submits a value with Begin. */
    private void onLast(Env env, NodeId from, Last last) {
        noteRound(last.acceptedRound());
        if (!collecting || last.round() != currentRound || decidedValue != null || !responders.add(from)) {
            return;
        }
        if (last.acceptedValue() != null) {
            latestResponseValue = last.acceptedValue();
            if (last.acceptedRound() > highestResponseRound) {
                highestResponseRound = last.acceptedRound();
                highestResponseValue = last.acceptedValue();
            }
        }
        if (responders.size() < majority) {
            return;
        }
        String value = latestResponseBug ? latestResponseValue : highestResponseValue;
        if (value == null) {
            value = ownValue != null ? ownValue : "v-" + env.self();
        }
        collecting = false;
        for (NodeId agent : allNodes) {
            env.send(agent, new Begin(slot, currentRound, value));
        }
    }

    /** Learns the decision once a majority of agents accepted the same round. */
    private void onAccepted(Env env, NodeId from, Accepted accepted) {
        noteRound(accepted.round());
        if (decidedValue != null) {
            return;
        }
        Map<NodeId, String> agents = acceptances.computeIfAbsent(accepted.round(), round -> new HashMap<>());
        agents.put(from, accepted.value());
        if (agents.size() >= majority) {
            decidedValue = accepted.value();
            decidedRound = accepted.round();
            acceptances.clear();
            if (roundTimer != null) {
                env.cancelTimer(roundTimer);
                roundTimer = null;
            }
            env.log("decided " + decidedValue + " in round " + decidedRound);
        }
    }

    private void onPropose(Env env, NodeId from, Propose propose) {
        if (ownValue == null) {
            ownValue = propose.value();
        }
        otherSlots.values().forEach(instance -> {
            if (instance.ownValue == null) {
                instance.ownValue = propose.value();
            }
        });
        String decided = decidedInEverySlot();
        if (decided != null) {
            env.send(from, new Decided(decided));
        }
    }

    private void noteRound(long round) {
        highestRoundSeen = Math.max(highestRoundSeen, round);
    }

    // ---- Agent ----

    /** Step 2: answers a Collect whose round is higher than any answered before. */
    private void onCollect(Env env, NodeId from, Collect collect) {
        noteRound(collect.round());
        if (collect.round() <= collectRound) {
            return;
        }
        collectRound = collect.round();
        persistAgentState(env);
        env.send(from, new Last(slot, collect.round(), acceptedRound, acceptedValue));
    }

    /** Step 4: accepts a Begin unless a Collect of a higher round was answered, and tells every leader. */
    private void onBegin(Env env, NodeId from, Begin begin) {
        noteRound(begin.round());
        if (collectRound > begin.round()) {
            return;
        }
        acceptedRound = begin.round();
        acceptedValue = begin.value();
        if (!specBug) {
            // The paper's fix: accepting round n counts as having answered Collect(n), so no smaller round
            // can later be answered or accepted and the accepted round never decreases.
            collectRound = Math.max(collectRound, begin.round());
        }
        persistAgentState(env);
        Accepted accepted = new Accepted(slot, acceptedRound, acceptedValue);
        for (NodeId leader : allNodes) {
            env.send(leader, accepted);
        }
    }

    private void persistAgentState(Env env) {
        Storage storage = env.storage();
        storage.write(COLLECT_ROUND_KEY, bytes(Long.toString(collectRound)));
        storage.write(ACCEPTED_ROUND_KEY, bytes(Long.toString(acceptedRound)));
        storage.write(ACCEPTED_VALUE_KEY, acceptedValue == null ? null : bytes(acceptedValue));
        storage.sync();
    }

    /** Parses the {@code sleep} argument, {@code MIN..MAX} in milliseconds; absent means the default 50..300. */
    static long[] sleepRange(String text) {
        if (text == null) {
            return new long[] {DEFAULT_MIN_SLEEP_MILLIS, DEFAULT_MAX_SLEEP_MILLIS};
        }
        String[] parts = text.split("\\.\\.", -1);
        try {
            if (parts.length == 2) {
                long min = Long.parseLong(parts[0].strip());
                long max = Long.parseLong(parts[1].strip());
                if (min >= 1 && max >= min) {
                    return new long[] {min, max};
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("Paxos argument sleep='" + text + "' must read MIN..MAX in milliseconds with"
                + " 1 <= MIN <= MAX, e.g. sleep=10..60");
    }

    private static long readLong(Storage storage, String key) {
        Optional<byte[]> value = storage.read(key);
        return value.map(bytes -> Long.parseLong(string(bytes))).orElse(0L);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * The view of the node's {@link Env} that the instance of one other slot gets: the same node, peers, clock and
     * randomness; storage keys of its own; its timers remembered so that their firings come back to it.
     */
    private final class SlotEnv extends ForwardingEnv {
        private final int slotOfView;

        SlotEnv(Env env, int slotOfView) {
            super(env);
            this.slotOfView = slotOfView;
        }

        @Override
        public TimerId setTimer(Duration delay, Object tag) {
            TimerId timer = super.setTimer(delay, tag);
            slotTimers.put(timer, slotOfView);
            return timer;
        }

        @Override
        public void cancelTimer(TimerId timer) {
            slotTimers.remove(timer);
            super.cancelTimer(timer);
        }

        @Override
        public Storage storage() {
            Storage storage = super.storage();
            String prefix = "slot" + slotOfView + ".";
            return new Storage() {
                @Override public Optional<byte[]> read(String key) { return storage.read(prefix + key); }

                @Override public void write(String key, byte[] value) { storage.write(prefix + key, value); }

                @Override public void sync() { storage.sync(); }
            };
        }

        @Override public void log(String line) { super.log("slot " + slotOfView + ": " + line); }
    }
}
