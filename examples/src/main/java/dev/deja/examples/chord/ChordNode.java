package dev.deja.examples.chord;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Chord node (Stoica et al., with the revised protocol's stabilization) on the ring of {@link ChordRing}.
 *
 * <p>Joining: told by the workload ({@link JoinRing}), the bootstrap node creates a ring of one and every other
 * node looks up its own key through the bootstrap node ({@link FindSuccessor}), taking the answer as its
 * successor and every finger, with no predecessor yet. Lookups are routed recursively through the closest
 * preceding finger; the node whose successor follows the key answers the origin directly.
 *
 * <p>Maintenance, on three timers: <em>stabilize</em> asks the successor for its predecessor and successor
 * ({@link GetNeighbours}), adopts the predecessor if it lies between, remembers the successor's successor, and
 * notifies the successor ({@link Notify}); <em>fix-fingers</em> looks up the next finger's start, walking the
 * table, and fills every following finger that shares the answer; <em>check-predecessor</em> pings the
 * predecessor unless it asked for this node's neighbours since the last check. Messages that carry no news are
 * not sent: no {@code Notify} to a successor that already has this node as its predecessor. A successor that misses {@value #MISSED_REPLIES_BEFORE_FAILED} stabilize rounds in a row is
 * declared failed and replaced by the successor's successor; a predecessor that misses as many pings is
 * dropped; a node declared failed is not taken back from stale answers until it is heard from again. The successor list is two long, so a ring survives one failure at a time: a node left with no live
 * successor it knows of is cut off, falls back to a ring of one (successor itself) and does not rejoin. Every
 * node learned of (a notifier, a successor's neighbours, a lookup's answer) is offered to every finger: it
 * replaces finger {@code i} if it lies in {@code [start_i, finger_i)}.
 *
 * <p>A node told to {@link Fail} stops at once and answers nothing: the others see a crash. Its state stays for
 * the checker, with {@code failed} set.
 *
 * <p>Bugs ({@code bug} argument), the three protocol bugs the WiDS Checker paper found in Macedon's Chord:
 * {@code succ-succ-hash} stores the hash of the successor's successor instead of its address, so the ring breaks
 * when a successor fails; {@code finger-lazy} refreshes one randomly chosen finger per round and only that one,
 * so fingers reach their targets many rounds late; {@code finger-boundary} treats {@code [start, start)} as the
 * whole ring when offering a node to a finger, so a perfect finger is replaced by any node and oscillates.
 */
public final class ChordNode implements Node {
    /** The bugs this node understands, name to description, in CLI order. */
    static final Map<String, String> BUGS = bugs();

    static final Duration STABILIZE_PERIOD = Duration.ofMillis(100);
    static final Duration FIX_FINGERS_PERIOD = Duration.ofMillis(100);
    static final Duration CHECK_PREDECESSOR_PERIOD = Duration.ofMillis(100);
    static final Duration JOIN_RETRY_PERIOD = Duration.ofMillis(500);
    /** Rounds in a row without an answer after which a successor or predecessor is taken for failed. */
    static final int MISSED_REPLIES_BEFORE_FAILED = 5;
    /** A lookup forwarded this often is dropped: the ring it travels is broken and the origin asks again. */
    static final int MAX_HOPS = 64;

    private static final String STABILIZE = "stabilize";
    private static final String FIX_FINGERS = "fix-fingers";
    private static final String CHECK_PREDECESSOR = "check-predecessor";
    private static final String JOIN_RETRY = "join-retry";

    private boolean succSuccHashBug;
    private boolean fingerLazyBug;
    private boolean fingerBoundaryBug;
    private NodeId self;
    private Set<NodeId> cluster;
    private final Map<NodeId, Integer> keys = new HashMap<>();
    private final Set<NodeId> reportedUnreachable = new HashSet<>();
    // Nodes this node declared failed: a stale answer that still names one is not taken for news.
    private final Set<NodeId> declaredFailed = new HashSet<>();
    private final List<TimerId> timers = new ArrayList<>();
    private NodeId bootstrap;

    // The state the checker reads (scripts/chord.py).
    private int key;
    private boolean joined;
    private boolean failed;
    private NodeId predecessor;
    private NodeId successor;
    private NodeId successorsSuccessor;
    private final NodeId[] fingers = new NodeId[ChordRing.BITS];

    // Failure detection and finger walking.
    private boolean awaitingNeighbours;
    private int missedNeighbours;
    private boolean awaitingPong;
    private int missedPongs;
    private boolean heardFromPredecessor;
    private int nextFinger;

    public ChordNode() {
    }

    private static Map<String, String> bugs() {
        Map<String, String> bugs = new LinkedHashMap<>();
        bugs.put("succ-succ-hash", "the successor's successor is set to the hash of its address instead of the "
                + "address, so the ring breaks when a node fails (the paper's first Chord bug)");
        bugs.put("finger-lazy", "fix_fingers refreshes one randomly chosen finger per round and only that one, so "
                + "fingers reach their targets far later than needed (the paper's second Chord bug)");
        bugs.put("finger-boundary", "the range [start, start) is taken for the whole ring, so a perfect finger is "
                + "replaced by any node and oscillates (the paper's third Chord bug)");
        return Collections.unmodifiableMap(bugs);
    }

    /** This node as the ring properties see it. */
    public ChordRing.View view() {
        return new ChordRing.View(self, joined && !failed, predecessor, successor, Arrays.asList(fingers.clone()));
    }

    @Override
    public void onStart(Env env) {
        String bug = env.args().get("bug");
        if (bug != null && !BUGS.containsKey(bug)) {
            throw new IllegalArgumentException("unknown Chord bug '" + bug + "'; valid bugs: "
                    + String.join(", ", BUGS.keySet()));
        }
        succSuccHashBug = "succ-succ-hash".equals(bug);
        fingerLazyBug = "finger-lazy".equals(bug);
        fingerBoundaryBug = "finger-boundary".equals(bug);
        self = env.self();
        key = keyOf(self);
        cluster = new HashSet<>(env.peers());
        cluster.add(self);
        for (NodeId peer : env.peers()) {
            if (keyOf(peer) == key) {
                throw new IllegalArgumentException("nodes " + self + " and " + peer + " both hash to key " + key
                        + " on a ring of " + ChordRing.SIZE + " keys; Chord needs distinct keys (rename one)");
            }
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (failed) {
            return; // a failed node is gone: it hears nothing
        }
        declaredFailed.remove(from); // it was only slow
        switch (message) {
            case JoinRing join -> join(env, join.bootstrap());
            case Fail _ -> fail(env);
            case FindSuccessor lookup -> route(env, lookup);
            case FoundSuccessor found -> onFound(env, found);
            case GetNeighbours _ -> {
                if (joined) {
                    heardFromPredecessor |= from.equals(predecessor);
                    deliver(env, from, new Neighbours(predecessor, successor));
                }
            }
            case Neighbours neighbours -> onNeighbours(env, from, neighbours);
            case Notify _ -> onNotify(from);
            case Ping _ -> {
                if (joined) {
                    deliver(env, from, new Pong());
                }
            }
            case Pong _ -> {
                if (from.equals(predecessor)) {
                    awaitingPong = false;
                    missedPongs = 0;
                }
            }
            default -> env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        timers.remove(timer);
        if (failed) {
            return;
        }
        switch ((String) tag) {
            case STABILIZE -> {
                stabilize(env);
                every(env, STABILIZE_PERIOD, STABILIZE);
            }
            case FIX_FINGERS -> {
                fixFingers(env);
                every(env, FIX_FINGERS_PERIOD, FIX_FINGERS);
            }
            case CHECK_PREDECESSOR -> {
                checkPredecessor(env);
                every(env, CHECK_PREDECESSOR_PERIOD, CHECK_PREDECESSOR);
            }
            case JOIN_RETRY -> {
                if (!joined) {
                    env.log("no answer to the join yet; asking " + bootstrap + " again");
                    deliver(env, bootstrap, new FindSuccessor(key, self, 0));
                    every(env, JOIN_RETRY_PERIOD, JOIN_RETRY);
                }
            }
            default -> env.log("ignored an unexpected timer " + tag);
        }
    }

    // ---- joining and failing ----

    private void join(Env env, NodeId through) {
        if (joined || bootstrap != null) {
            return;
        }
        bootstrap = through;
        if (through.equals(self)) {
            predecessor = self;
            setSuccessor(self);
            Arrays.fill(fingers, self);
            joined = true;
            env.log("created the ring (key " + key + ")");
            startMaintenance(env);
            return;
        }
        deliver(env, through, new FindSuccessor(key, self, 0));
        every(env, JOIN_RETRY_PERIOD, JOIN_RETRY);
    }

    private void joined(Env env, NodeId found) {
        predecessor = null;
        setSuccessor(found);
        Arrays.fill(fingers, found);
        joined = true;
        env.log("joined the ring (key " + key + "): successor " + found + " (key " + keyOf(found) + ")");
        startMaintenance(env);
    }

    private void startMaintenance(Env env) {
        // Random first rounds, so that nodes that joined together do not run their rounds in lockstep.
        timers.add(env.setTimer(firstRound(env, STABILIZE_PERIOD), STABILIZE));
        timers.add(env.setTimer(firstRound(env, FIX_FINGERS_PERIOD), FIX_FINGERS));
        timers.add(env.setTimer(firstRound(env, CHECK_PREDECESSOR_PERIOD), CHECK_PREDECESSOR));
    }

    private static Duration firstRound(Env env, Duration period) {
        return Duration.ofMillis(1 + env.random().nextLong(period.toMillis()));
    }

    private void fail(Env env) {
        failed = true;
        for (TimerId timer : timers) {
            env.cancelTimer(timer);
        }
        timers.clear();
        env.log("failing now, as the workload asked");
    }

    // ---- lookups ----

    /** Answers a lookup if this node's successor follows the key, else forwards it to the closest preceding node. */
    private void route(Env env, FindSuccessor lookup) {
        if (!joined) {
            return; // not on the ring yet; the origin asks again
        }
        if (arcClosedRight(lookup.key(), key, successor)) {
            FoundSuccessor found = new FoundSuccessor(lookup.key(), successor, lookup.hops());
            if (lookup.origin().equals(self)) {
                onFound(env, found);
            } else {
                deliver(env, lookup.origin(), found);
            }
        } else if (lookup.hops() >= MAX_HOPS) {
            env.log("dropped a lookup for key " + lookup.key() + " from " + lookup.origin() + " after "
                    + lookup.hops() + " hops");
        } else {
            deliver(env, closestPrecedingNode(lookup.key()),
                    new FindSuccessor(lookup.key(), lookup.origin(), lookup.hops() + 1));
        }
    }

    private NodeId closestPrecedingNode(int target) {
        for (int i = fingers.length - 1; i >= 0; i--) {
            NodeId finger = fingers[i];
            if (finger != null && ChordRing.openArc(keyOf(finger), key, target)) {
                return finger;
            }
        }
        return successor;
    }

    private void onFound(Env env, FoundSuccessor found) {
        if (!joined) {
            if (bootstrap != null && found.key() == key && !found.successor().equals(self)) {
                joined(env, found.successor());
            }
            return;
        }
        if (declaredFailed.contains(found.successor())) {
            return; // the answer was given before the news of the failure reached the node that gave it
        }
        for (int i = 0; i < fingers.length; i++) {
            if (ChordRing.fingerStart(key, i) == found.key()) {
                fingers[i] = found.successor();
                if (!fingerLazyBug) {
                    fillFollowingFingers(i, found.successor());
                }
            }
        }
        offerToFingers(found.successor());
    }

    /** Finger {@code i}'s answer is also every following finger's whose start lies in {@code [start_i, answer]}. */
    private void fillFollowingFingers(int i, NodeId answer) {
        int start = ChordRing.fingerStart(key, i);
        int answerKey = keyOf(answer);
        if (answerKey == start) {
            return; // a perfect finger: no other start lies in [start, start]
        }
        int j = i + 1;
        while (j < fingers.length && ChordRing.arcClosedRight(ChordRing.fingerStart(key, j), start, answerKey)) {
            fingers[j] = answer;
            j++;
        }
        if (nextFinger > i && nextFinger < j) {
            nextFinger = j % fingers.length;
        }
    }

    /** Lets a node this node learned of replace every finger it is closer to: {@code [start_i, finger_i)}. */
    private void offerToFingers(NodeId candidate) {
        if (candidate == null || candidate.equals(self) || declaredFailed.contains(candidate)) {
            return;
        }
        int candidateKey = keyOf(candidate);
        for (int i = 0; i < fingers.length; i++) {
            int start = ChordRing.fingerStart(key, i);
            int current = keyOf(fingers[i]);
            boolean closer;
            if (fingerBoundaryBug) {
                // [start, current) as "start, or strictly between": openArc(start, start) is the whole ring.
                closer = candidateKey == start || ChordRing.openArc(candidateKey, start, current);
            } else {
                // [start, start) is empty: a finger that is exactly its start cannot be improved.
                closer = current != start && (candidateKey == start || ChordRing.openArc(candidateKey, start, current));
            }
            if (closer) {
                fingers[i] = candidate;
            }
        }
    }

    // ---- maintenance ----

    private void stabilize(Env env) {
        if (successor.equals(self)) {
            return; // a ring of one: the first node to notify this one becomes its successor
        }
        if (awaitingNeighbours && ++missedNeighbours >= MISSED_REPLIES_BEFORE_FAILED) {
            successorFailed(env);
            if (successor.equals(self)) {
                return;
            }
        }
        awaitingNeighbours = true;
        deliver(env, successor, new GetNeighbours());
    }

    private void onNeighbours(Env env, NodeId from, Neighbours neighbours) {
        if (!joined || !from.equals(successor)) {
            return; // an answer from a node that is no longer the successor
        }
        awaitingNeighbours = false;
        missedNeighbours = 0;
        rememberSuccessorsSuccessor(neighbours.successor());
        NodeId between = neighbours.predecessor();
        if (between != null && !between.equals(self) && !declaredFailed.contains(between)
                && ChordRing.openArc(keyOf(between), key, keyOf(successor))) {
            setSuccessor(between);
            rememberSuccessorsSuccessor(from);
        }
        offerToFingers(neighbours.predecessor());
        offerToFingers(neighbours.successor());
        offerToFingers(from);
        if (!(successor.equals(from) && self.equals(neighbours.predecessor()))) {
            deliver(env, successor, new Notify()); // unless the successor already takes this node for its predecessor
        }
    }

    private void onNotify(NodeId from) {
        if (!joined || from.equals(self)) {
            return;
        }
        if (predecessor == null || ChordRing.openArc(keyOf(from), keyOf(predecessor), key)) {
            predecessor = from;
            awaitingPong = false;
            missedPongs = 0;
            heardFromPredecessor = false;
            if (successor.equals(self)) {
                // The revised protocol: a node alone takes the first node it learns of as its successor too.
                setSuccessor(from);
            }
        }
        offerToFingers(from);
    }

    private void fixFingers(Env env) {
        int i;
        if (fingerLazyBug) {
            i = env.random().nextInt(fingers.length);
        } else {
            i = nextFinger;
            nextFinger = (i + 1) % fingers.length;
        }
        route(env, new FindSuccessor(ChordRing.fingerStart(key, i), self, 0));
    }

    private void checkPredecessor(Env env) {
        if (predecessor == null || predecessor.equals(self)) {
            return;
        }
        if (heardFromPredecessor) {
            // Its stabilize asked this node for its neighbours since the last check: it is alive, no ping needed.
            heardFromPredecessor = false;
            awaitingPong = false;
            missedPongs = 0;
            return;
        }
        if (awaitingPong && ++missedPongs >= MISSED_REPLIES_BEFORE_FAILED) {
            NodeId gone = predecessor;
            declaredFailed.add(gone);
            predecessor = null;
            awaitingPong = false;
            missedPongs = 0;
            // Keys the failed node held are now this node's: so are the fingers that pointed at it.
            replaceFinger(gone, self);
            env.log("predecessor " + gone + " failed");
            return;
        }
        awaitingPong = true;
        deliver(env, predecessor, new Ping());
    }

    private void successorFailed(Env env) {
        NodeId gone = successor;
        declaredFailed.add(gone);
        NodeId next = successorsSuccessor;
        setSuccessor(next == null || next.equals(gone) ? self : next);
        replaceFinger(gone, successor);
        env.log("successor " + gone + " failed; successor now " + successor);
    }

    private void setSuccessor(NodeId node) {
        successor = node;
        successorsSuccessor = null; // learned from the new successor at the next stabilize
        awaitingNeighbours = false;
        missedNeighbours = 0;
    }

    private void rememberSuccessorsSuccessor(NodeId node) {
        if (succSuccHashBug && node != null) {
            // The bug: the field gets the node's hash where its address belongs.
            successorsSuccessor = new NodeId(Integer.toString(keyOf(node)));
        } else {
            successorsSuccessor = node;
        }
    }

    private void replaceFinger(NodeId gone, NodeId replacement) {
        for (int i = 0; i < fingers.length; i++) {
            if (gone.equals(fingers[i])) {
                fingers[i] = replacement;
            }
        }
    }

    // ---- plumbing ----

    private boolean arcClosedRight(int x, int from, NodeId to) {
        return ChordRing.arcClosedRight(x, from, keyOf(to));
    }

    private void every(Env env, Duration period, String tag) {
        timers.add(env.setTimer(period, tag));
    }

    /** Sends to a node of the cluster; a message to any other address is lost, as on a real network. */
    private void deliver(Env env, NodeId to, Object message) {
        if (cluster.contains(to)) {
            env.send(to, message);
        } else if (reportedUnreachable.add(to)) {
            env.log("no node at address " + to + ": messages to it are lost");
        }
    }

    private int keyOf(NodeId node) {
        return keys.computeIfAbsent(node, ChordRing::key);
    }
}
