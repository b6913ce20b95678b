package dev.deja.examples.paxos;

import dev.deja.node.Env;
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
 * <p>Bugs ({@code bug} argument): {@code latest-response} makes the leader submit the value of the latest
 * received answer that carries one; {@code spec} follows the published specification, whose agent keeps the
 * accepted round apart from the answered-Collect round, so its accepted round can decrease.
 */
public final class PaxosNode implements Node {
    /** The bugs this node understands, name to description, in CLI order. */
    static final Map<String, String> BUGS = bugs();

    private static final String NEXT_ROUND_TAG = "next-round";
    private static final long MIN_SLEEP_MILLIS = 50;
    private static final long MAX_SLEEP_MILLIS = 300;
    private static final String COLLECT_ROUND_KEY = "agent.collectRound";
    private static final String ACCEPTED_ROUND_KEY = "agent.acceptedRound";
    private static final String ACCEPTED_VALUE_KEY = "agent.acceptedValue";
    private static final String LEADER_ROUND_KEY = "leader.round";

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
        specBug = "spec".equals(bug);

        List<NodeId> nodes = new ArrayList<>(env.peers());
        nodes.add(env.self());
        nodes.sort(null);
        allNodes = List.copyOf(nodes);
        majority = allNodes.size() / 2 + 1;
        selfIndex = allNodes.indexOf(env.self());

        Storage storage = env.storage();
        collectRound = readLong(storage, COLLECT_ROUND_KEY);
        acceptedRound = readLong(storage, ACCEPTED_ROUND_KEY);
        acceptedValue = storage.read(ACCEPTED_VALUE_KEY).map(PaxosNode::string).orElse(null);
        currentRound = readLong(storage, LEADER_ROUND_KEY);
        highestRoundSeen = Math.max(currentRound, Math.max(collectRound, acceptedRound));
        if (env.incarnation() > 1) {
            env.log("recovered collectRound=" + collectRound + " acceptedRound=" + acceptedRound
                    + " acceptedValue=" + acceptedValue + " leaderRound=" + currentRound);
        }
        sleepBeforeNextRound(env);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case Collect collect -> onCollect(env, from, collect);
            case Last last -> onLast(env, from, last);
            case Begin begin -> onBegin(env, from, begin);
            case Accepted accepted -> onAccepted(env, from, accepted);
            case Propose propose -> onPropose(env, from, propose);
            case Query _ -> {
                if (decidedValue != null) {
                    env.send(from, new Decided(decidedValue));
                }
            }
            default -> env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
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
            long sleepMillis = env.random().nextLong(MIN_SLEEP_MILLIS, MAX_SLEEP_MILLIS + 1);
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
            env.send(agent, new Collect(currentRound));
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
            env.send(agent, new Begin(currentRound, value));
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
        if (decidedValue != null) {
            env.send(from, new Decided(decidedValue));
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
        env.send(from, new Last(collect.round(), acceptedRound, acceptedValue));
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
        Accepted accepted = new Accepted(acceptedRound, acceptedValue);
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
}
