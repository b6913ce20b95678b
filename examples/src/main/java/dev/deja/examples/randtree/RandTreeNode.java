package dev.deja.examples.randtree;

import dev.deja.examples.randtree.TreeMessage.Heartbeat;
import dev.deja.examples.randtree.TreeMessage.Join;
import dev.deja.examples.randtree.TreeMessage.JoinReply;
import dev.deja.examples.randtree.TreeMessage.JoinStatus;
import dev.deja.examples.randtree.TreeMessage.NewRoot;
import dev.deja.examples.randtree.TreeMessage.Probe;
import dev.deja.examples.randtree.TreeMessage.ProbeJoin;
import dev.deja.examples.randtree.TreeMessage.Rejoin;
import dev.deja.examples.randtree.TreeMessage.Remove;
import dev.deja.examples.randtree.TreeMessage.Status;
import dev.deja.examples.randtree.TreeMessage.StatusQuery;
import dev.deja.examples.randtree.TreeMessage.UpdateSiblings;
import dev.deja.node.Env;
import dev.deja.node.Exposed;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A node of RandTree, the random degree-bounded overlay tree of Mace (MaceMC, NSDI'07; CrystalBall, NSDI'09).
 *
 * <p><b>Joining.</b> The bootstrap node (by default the smallest id, the most eligible root) joins itself and
 * is the first root. Every other node waits a random moment and sends {@link Join} to the bootstrap. A member
 * that is not the root redirects the request to its root; the root takes the joiner as a child if it has room,
 * and otherwise forwards the request to a random child, which does the same, so the joiner lands at a random
 * place with room. A joiner with a smaller id than the root is more eligible: the root tells it to be the root
 * ({@code ROOT_FORCE}) and joins it, taking the whole tree along, and the new root reaches every node through
 * {@link NewRoot} messages passed down from parent to children.
 *
 * <p><b>Siblings.</b> A parent tells each child its siblings (its other children) and the root with
 * {@link UpdateSiblings} whenever its children change and on every recovery tick; that message is also the
 * parent's heartbeat.
 *
 * <p><b>Recovery.</b> Every node runs a recurring recovery timer from its start. On each tick it sends a
 * {@link Heartbeat} to its parent and an {@link UpdateSiblings} to each child, drops children it has not heard
 * from for {@value #CHILD_TIMEOUT_MILLIS} ms, and now and then probes one peer outside its neighbourhood so that
 * separate trees find each other and the one with the larger root joins the other. A node that has not heard
 * from its parent for {@value #PARENT_TIMEOUT_MILLIS} ms has lost it. If the parent was the root, the smallest of
 * the root's children (by the node's sibling list) becomes the root and the others join it directly, each with
 * its subtree. Otherwise the node joins again through the root, after telling its children to rejoin
 * ({@link Rejoin}) and waiting until they have left (or must have noticed it is gone), so that it can never be
 * placed under one of its own descendants. A node that restarts after a crash has lost all its state and joins
 * again; its old parent keeps it as a child until the child timeout.
 *
 * <p><b>Bugs</b> ({@code bug} argument), each one of the RandTree inconsistencies CrystalBall describes
 * (section 1.2 and 5.2.1):
 * <ul>
 *   <li>{@code sibling-not-removed}: the {@link UpdateSiblings} handler installs the new siblings without
 *       removing them from the children, so a child that crashed, restarted and joined the parent's parent is
 *       both a child and a sibling of its old parent.</li>
 *   <li>{@code stale-child-on-new-root}: the {@link NewRoot} handler installs the new root without checking the
 *       children, so a node whose child crashed, restarted and became the root keeps the root as its child.</li>
 *   <li>{@code root-keeps-siblings}: a child of a failed root that promotes itself to root keeps its sibling
 *       list, so a root has siblings.</li>
 *   <li>{@code no-recovery-timer}: the bootstrap node, which joins itself with an empty peer list, never
 *       schedules the recovery timer, so a joined node has none (and never sends heartbeats or probes).</li>
 * </ul>
 *
 * <p><b>Topologies</b> ({@code topology} argument). By default ({@code all}) every node knows every other node.
 * {@code two-trees} is MaceMC's RandTree scenario (section 2): only the bootstrap knows every node. The other nodes,
 * in id order, are split in two halves: the first half know the bootstrap and each other, the second half only each
 * other, so that the smallest of the second half is their bootstrap, joins itself at its start and grows a second
 * tree that only the first bootstrap can find. That bootstrap joins itself at its random start moment instead (Mace's
 * application calling {@code joinOverlay}), always after the second tree's root exists, and schedules its recovery
 * timer in that step. Its recovery probes then reach the second tree's root, which joins it with its whole tree:
 * the two trees merge. With {@code no-recovery-timer} nothing ever probes across, and OneRoot stays false for good:
 * the bootstrap's self-join is the critical transition.
 */
public final class RandTreeNode implements Node {
    /** The bugs this node understands, name to description, in CLI order. */
    static final Map<String, String> BUGS = bugs();

    /** The node arguments besides {@code bug}, as {@code KEY=FORM} to description. */
    static final Map<String, String> ARGUMENTS = arguments();

    /** Where a node is in joining the tree. */
    public enum JoinState {
        /** Started, waiting for its moment to join. */
        INIT,
        /** Looking for a parent (or, with a subtree, for a more eligible root to join). */
        JOINING,
        /** In the tree: the root, or a node with a parent. */
        JOINED
    }

    /** Who knows whom: which peers each node joins, forwards to and probes. */
    private enum Topology {
        /** Every node knows every other node. */
        ALL,
        /** Only the bootstrap knows every node; the others know their half (the first half also the bootstrap). */
        TWO_TREES;

        static Topology of(NodeId self, String name) {
            if (name == null) {
                return ALL;
            }
            return Arrays.stream(values()).filter(t -> t.cliName().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("node " + self + ": unknown topology '" + name
                            + "'; valid topologies: all, two-trees"));
        }

        String cliName() {
            return name().toLowerCase().replace('_', '-');
        }

        /** The peers {@code self} knows in {@code cluster} (sorted, {@code self} included) with this bootstrap. */
        List<NodeId> peersOf(NodeId self, List<NodeId> cluster, NodeId bootstrap) {
            List<NodeId> known = new ArrayList<>(cluster);
            if (this == TWO_TREES && !self.equals(bootstrap)) {
                List<NodeId> others = new ArrayList<>(cluster);
                others.remove(bootstrap);
                int half = others.size() / 2;
                List<NodeId> first = others.subList(0, half);
                if (first.contains(self)) {
                    known = new ArrayList<>(first);
                    known.add(bootstrap);
                    known.sort(null);
                } else {
                    known = new ArrayList<>(others.subList(half, others.size()));
                }
            }
            known.remove(self);
            return List.copyOf(known);
        }
    }

    private enum Bug {
        NONE, SIBLING_NOT_REMOVED, STALE_CHILD_ON_NEW_ROOT, ROOT_KEEPS_SIBLINGS, NO_RECOVERY_TIMER;

        static Bug of(String name) {
            if (name == null) {
                return NONE;
            }
            return Arrays.stream(values()).filter(b -> b.cliName().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown RandTree bug '" + name
                            + "'; valid bugs: " + String.join(", ", BUGS.keySet())));
        }

        String cliName() {
            return name().toLowerCase().replace('_', '-');
        }
    }

    /** Most children a node takes when the {@code maxChildren} argument does not say. */
    static final int DEFAULT_MAX_CHILDREN = 2;
    /** A first incarnation waits up to this long before joining, so that nodes join in a random order. */
    static final long JOIN_SPREAD_MILLIS = 400;
    /** How long a joiner waits for an answer before it asks again. */
    static final long JOIN_TIMEOUT_MILLIS = 250;
    /** How often a joiner asks its first target before it tries each other peer once. */
    static final int FIRST_TARGET_TRIES = 2;
    /** The period of the recovery timer. */
    static final long RECOVERY_INTERVAL_MILLIS = 100;
    /** A parent not heard from for this long has failed: its children look for another place quickly. */
    static final long PARENT_TIMEOUT_MILLIS = 450;
    /**
     * A child not heard from for this long has failed. Parents drop children lazily (as Mace's RandTree, which
     * relies on the transport to report a broken connection), so a child that restarts quickly is still listed.
     */
    static final long CHILD_TIMEOUT_MILLIS = 1200;
    /**
     * How long a node that lost its parent waits for its former children to leave before joining again: longer
     * than they need to notice its silence (parent timeout, one tick, and a message delay of up to 100 ms).
     */
    static final long DETACH_WAIT_MILLIS = PARENT_TIMEOUT_MILLIS + 2 * RECOVERY_INTERVAL_MILLIS + 100;
    /** A join request redirected or forwarded more often than this went round in circles and is dropped. */
    static final int MAX_JOIN_HOPS = 16;
    /** Every this many recovery ticks a joined node probes one peer. */
    static final int PROBE_EVERY_TICKS = 3;

    private static final String START_JOIN_TAG = "start-join";
    private static final String JOIN_TAG = "join";
    private static final String RECOVERY_TAG = "recovery";
    private static final String DETACH_TAG = "detach";

    // Configuration.
    private Bug bug = Bug.NONE;
    private Topology topology = Topology.ALL;
    private NodeId self;
    private List<NodeId> peers;
    private int maxChildren;
    private NodeId bootstrap;

    // The tree as this node sees it (the checker's columns).
    private JoinState state = JoinState.INIT;
    private NodeId root;
    private NodeId parent;
    private final TreeSet<NodeId> children = new TreeSet<>();
    private final TreeSet<NodeId> siblings = new TreeSet<>();
    private TimerId recoveryTimer;

    // Joining.
    private NodeId joinTarget;
    private int joinTries;
    private long joinAttempt;
    private long attemptCounter;
    private TimerId joinTimer;
    // Whether this node is a root joining a more eligible one (it stays the root if that one does not answer).
    private boolean givingUpRoot;
    private final TreeSet<NodeId> detaching = new TreeSet<>();
    private TimerId detachTimer;

    // Failure detection and probing.
    private final TreeMap<NodeId, Long> lastHeardMillis = new TreeMap<>();
    private NodeId lastProbed;
    private long ticks;

    public RandTreeNode() {
    }

    private static Map<String, String> arguments() {
        Map<String, String> arguments = new LinkedHashMap<>();
        arguments.put("maxChildren=N", "most children a node takes (default " + DEFAULT_MAX_CHILDREN + ")");
        arguments.put("bootstrap=NODE", "the node that joins itself first and that the others join through "
                + "(default: the smallest id)");
        arguments.put("topology=all|two-trees", "who knows whom (default all: everybody); two-trees: MaceMC's "
                + "scenario, only the bootstrap knows the second half of the nodes, which grow their own tree first, "
                + "so with no-recovery-timer the two trees never merge");
        return Collections.unmodifiableMap(arguments);
    }

    private static Map<String, String> bugs() {
        Map<String, String> bugs = new LinkedHashMap<>();
        bugs.put("sibling-not-removed", "UpdateSiblings installs new siblings without removing them from the children "
                + "(CrystalBall 1.2: a restarted child that rejoined higher up is both child and sibling)");
        bugs.put("stale-child-on-new-root", "NewRoot installs the new root without checking the children "
                + "(CrystalBall 5.2.1: a restarted child that became the root is still its old parent's child)");
        bugs.put("root-keeps-siblings", "a child of a failed root promotes itself to root but keeps its siblings "
                + "(CrystalBall 5.2.1: the root has siblings)");
        bugs.put("no-recovery-timer", "the bootstrap node joins itself without scheduling the recovery timer "
                + "(CrystalBall 5.2.1: a joined node has no recovery timer)");
        return Collections.unmodifiableMap(bugs);
    }

    // ---- what the checker and tests read ----

    /** Where this node is in joining. */
    @Exposed
    public JoinState state() {
        return state;
    }

    /** The root this node believes in (itself while it has no tree above it). */
    @Exposed
    public NodeId root() {
        return root;
    }

    /** This node's parent, or null for a root or a node that is not joined. */
    @Exposed
    public NodeId parent() {
        return parent;
    }

    /** This node's children, sorted. */
    @Exposed
    public SortedSet<NodeId> children() {
        return Collections.unmodifiableSortedSet(children);
    }

    /** This node's siblings (its parent's other children, as the parent last said), sorted. */
    @Exposed
    public SortedSet<NodeId> siblings() {
        return Collections.unmodifiableSortedSet(siblings);
    }

    /** Whether the recovery timer is scheduled: the node holds the id of a pending recovery timer. */
    @Exposed
    public boolean recoveryTimerScheduled() {
        return recoveryTimer != null;
    }

    /** Whether this node is a joined root. */
    public boolean isRoot() {
        return state == JoinState.JOINED && self.equals(root);
    }

    // ---- handlers ----

    @Override
    public void onStart(Env env) {
        bug = Bug.of(env.args().get("bug"));
        self = env.self();
        topology = Topology.of(self, env.args().get("topology"));
        String fanOut = env.args().getOrDefault("maxChildren", Integer.toString(DEFAULT_MAX_CHILDREN));
        try {
            maxChildren = Integer.parseInt(fanOut);
        } catch (NumberFormatException e) {
            maxChildren = 0;
        }
        if (maxChildren < 1) {
            throw new IllegalArgumentException("node " + self + ": maxChildren must be a positive integer, was '"
                    + fanOut + "'");
        }
        List<NodeId> all = new ArrayList<>(env.peers());
        all.add(self);
        all.sort(null);
        bootstrap = env.args().containsKey("bootstrap") ? NodeId.of(env.args().get("bootstrap")) : all.getFirst();
        if (!all.contains(bootstrap)) {
            throw new IllegalArgumentException("node " + self + ": bootstrap " + bootstrap + " is not in the cluster "
                    + all);
        }
        peers = topology.peersOf(self, all, bootstrap);
        boolean firstBootstrap = self.equals(bootstrap);
        if (!firstBootstrap && !peers.contains(bootstrap)) {
            // The second tree of two-trees: its smallest node is its bootstrap.
            bootstrap = peers.isEmpty() || self.compareTo(peers.getFirst()) < 0 ? self : peers.getFirst();
        }
        root = self;

        // Mace's joinOverlay: a node with no one to join joins itself; the bug is to schedule the recovery
        // timer only when there are peers to join. In the two-trees topology the bootstrap joins itself later, at
        // its start moment, so that the second tree exists by then (MaceMC: "in the presence of disjoint trees").
        boolean joinsLater = topology == Topology.TWO_TREES && firstBootstrap && !peers.isEmpty()
                && env.incarnation() == 1;
        boolean joinsItself = !joinsLater && (peers.isEmpty() || (env.incarnation() == 1 && self.equals(bootstrap)));
        if (!joinsLater && !(joinsItself && bug == Bug.NO_RECOVERY_TIMER)) {
            scheduleRecovery(env);
        }
        if (joinsItself) {
            becomeRoot(env, "joined itself as the bootstrap");
        } else if (env.incarnation() == 1) {
            env.setTimer(Duration.ofMillis(env.random().nextLong(JOIN_SPREAD_MILLIS + 1)), START_JOIN_TAG);
        } else {
            startJoining(env, firstTarget());
        }
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case Join join -> onJoin(env, join);
            case JoinReply reply -> onJoinReply(env, from, reply);
            case UpdateSiblings update -> onUpdateSiblings(env, from, update);
            case NewRoot newRoot -> onNewRoot(env, from, newRoot);
            case Heartbeat _ -> onHeartbeat(env, from);
            case Remove _ -> onRemove(env, from);
            case Rejoin rejoin -> onRejoin(env, from, rejoin);
            case Probe probe -> onProbe(env, probe);
            case ProbeJoin probeJoin -> onProbeJoin(env, probeJoin);
            case StatusQuery _ -> env.send(from, new Status(state, root, parent, List.copyOf(children),
                    List.copyOf(siblings)));
            default -> env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        switch (tag) {
            case String t when t.equals(START_JOIN_TAG) -> {
                if (state == JoinState.INIT && self.equals(bootstrap)) {
                    joinItselfLate(env);
                } else if (state == JoinState.INIT) {
                    startJoining(env, firstTarget());
                }
            }
            case String t when t.equals(JOIN_TAG) && timer.equals(joinTimer) -> {
                joinTimer = null;
                onJoinTimeout(env);
            }
            case String t when t.equals(RECOVERY_TAG) && timer.equals(recoveryTimer) -> {
                recoveryTimer = null;
                onRecovery(env);
                scheduleRecovery(env);
            }
            case String t when t.equals(DETACH_TAG) && timer.equals(detachTimer) -> {
                detachTimer = null;
                detaching.clear();
                sendJoin(env);
            }
            default -> {
            }
        }
    }

    // ---- joining ----

    /** The two-trees bootstrap's own join, at its start moment: with the bug, without the recovery timer. */
    private void joinItselfLate(Env env) {
        if (bug != Bug.NO_RECOVERY_TIMER) {
            scheduleRecovery(env);
        }
        becomeRoot(env, "joined itself as the bootstrap");
    }

    private NodeId firstTarget() {
        return bootstrap.equals(self) || !peers.contains(bootstrap) ? peers.getFirst() : bootstrap;
    }

    private void startJoining(Env env, NodeId target) {
        enterJoining(target);
        sendJoin(env);
    }

    /** Leaves the tree position this node had, to join under {@code target} from its first try. */
    private void enterJoining(NodeId target) {
        state = JoinState.JOINING;
        givingUpRoot = false;
        parent = null;
        siblings.clear();
        joinTarget = target;
        joinTries = 0;
    }

    private void sendJoin(Env env) {
        joinAttempt = ((long) env.incarnation() << 32) | ++attemptCounter;
        env.send(joinTarget, new Join(self, null, joinAttempt, 0));
        if (joinTimer != null) {
            env.cancelTimer(joinTimer);
        }
        joinTimer = env.setTimer(Duration.ofMillis(JOIN_TIMEOUT_MILLIS), JOIN_TAG);
    }

    /** No answer: ask the same target again, then each other peer once; after every peer, be a root alone. */
    private void onJoinTimeout(Env env) {
        if (state != JoinState.JOINING || detachTimer != null) {
            return;
        }
        joinTries++;
        if (givingUpRoot && joinTries >= FIRST_TARGET_TRIES) {
            becomeRoot(env, joinTarget + " did not answer: still the root");
            return;
        }
        if (joinTries >= FIRST_TARGET_TRIES + peers.size()) {
            becomeRoot(env, "nobody answered a join: root of my own tree");
            return;
        }
        if (joinTries >= FIRST_TARGET_TRIES) {
            joinTarget = nextPeer(joinTarget, children);
        }
        sendJoin(env);
    }

    /** The peer after {@code after} in sorted order (cyclically), skipping {@code skip} where possible. */
    private NodeId nextPeer(NodeId after, SortedSet<NodeId> skip) {
        int start = after == null ? -1 : peers.indexOf(after);
        for (int i = 1; i <= peers.size(); i++) {
            NodeId candidate = peers.get(Math.floorMod(start + i, peers.size()));
            if (!skip.contains(candidate)) {
                return candidate;
            }
        }
        return peers.get(Math.floorMod(start + 1, peers.size()));
    }

    private void onJoin(Env env, Join join) {
        NodeId joiner = join.source();
        if (joiner.equals(self) || join.hops() > MAX_JOIN_HOPS) {
            return; // my own request came back round, or a request went round: the joiner asks again
        }
        if (state == JoinState.INIT && self.equals(bootstrap)) {
            return; // the two-trees bootstrap before its own join: the joiner asks again
        }
        if (state != JoinState.JOINED) {
            // Only members place joiners. A root handing over to the joiner asks it again to be the root (the
            // first answer was lost); otherwise the request goes where this node itself is heading.
            if (givingUpRoot && joiner.equals(joinTarget)) {
                env.send(joiner, new JoinReply(JoinStatus.ROOT_FORCE, joiner, List.of(), join.attempt()));
            } else {
                NodeId heading = state == JoinState.INIT ? firstTarget() : joinTarget;
                if (!joiner.equals(heading)) {
                    env.send(heading, join.next(null));
                }
            }
            return;
        }
        boolean amRoot = self.equals(root);
        if (!amRoot && !root.equals(join.redirectedBy())) {
            if (joiner.equals(root)) {
                env.send(joiner, new JoinReply(JoinStatus.LOOP_ERROR, joiner, List.of(), join.attempt()));
            } else {
                env.send(root, join.next(null));
            }
            return;
        }
        if (joiner.equals(parent)) {
            return; // my parent is looking for a place: it is about to leave me, never my child
        }
        if (amRoot && joiner.compareTo(self) < 0) {
            // The joiner is more eligible: it becomes the root, and this node joins it with the whole tree.
            env.send(joiner, new JoinReply(JoinStatus.ROOT_FORCE, joiner, List.of(), join.attempt()));
            giveUpRoot(env, joiner);
            return;
        }
        if (children.contains(joiner) || children.size() < maxChildren) {
            children.add(joiner);
            siblings.remove(joiner);
            lastHeardMillis.put(joiner, env.nowMillis());
            env.send(joiner, new JoinReply(JoinStatus.ACCEPTED, root, siblingsOf(joiner), join.attempt()));
            for (NodeId child : children) {
                if (!child.equals(joiner)) {
                    env.send(child, new UpdateSiblings(root, siblingsOf(child)));
                }
            }
            return;
        }
        List<NodeId> candidates = List.copyOf(children);
        NodeId chosen = candidates.get(env.random().nextInt(candidates.size()));
        env.send(chosen, join.next(root));
    }

    private void onJoinReply(Env env, NodeId from, JoinReply reply) {
        if (state != JoinState.JOINING || reply.attempt() != joinAttempt) {
            if (reply.status() == JoinStatus.ACCEPTED && !from.equals(parent)) {
                env.send(from, new Remove()); // a late or duplicate acceptance: I am not your child
            }
            return;
        }
        switch (reply.status()) {
            case ACCEPTED -> {
                cancelJoinTimer(env);
                givingUpRoot = false;
                state = JoinState.JOINED;
                parent = from;
                root = reply.root();
                lastHeardMillis.put(from, env.nowMillis());
                children.remove(root);
                children.remove(parent);
                siblings.clear();
                siblings.addAll(reply.siblings());
                siblings.remove(self);
                siblings.remove(root);
                children.removeAll(siblings);
                for (NodeId child : children) {
                    env.send(child, new NewRoot(root));
                }
            }
            case ROOT_FORCE -> becomeRoot(env, from + " says I am more eligible: the root");
            case LOOP_ERROR -> becomeRoot(env, from + " is my descendant: still the root");
        }
    }

    private void becomeRoot(Env env, String why) {
        cancelJoinTimer(env);
        givingUpRoot = false;
        state = JoinState.JOINED;
        root = self;
        parent = null;
        siblings.clear();
        env.log(why);
        for (NodeId child : children) {
            env.send(child, new NewRoot(self));
        }
    }

    private void cancelJoinTimer(Env env) {
        if (joinTimer != null) {
            env.cancelTimer(joinTimer);
            joinTimer = null;
        }
    }

    // ---- from parent to child ----

    private void onUpdateSiblings(Env env, NodeId from, UpdateSiblings update) {
        if (!from.equals(parent)) {
            return; // a former parent that still counts me as its child: it drops me when I stay silent
        }
        lastHeardMillis.put(from, env.nowMillis());
        root = update.root();
        children.remove(root);
        siblings.clear();
        siblings.addAll(update.siblings());
        siblings.remove(self);
        siblings.remove(root);
        if (bug != Bug.SIBLING_NOT_REMOVED) {
            // A sibling is a child of my parent: if I still list it as my child, that is stale.
            children.removeAll(siblings);
        }
    }

    private void onNewRoot(Env env, NodeId from, NewRoot newRoot) {
        if (!from.equals(parent)) {
            return;
        }
        lastHeardMillis.put(from, env.nowMillis());
        root = newRoot.root();
        siblings.remove(root);
        if (bug != Bug.STALE_CHILD_ON_NEW_ROOT) {
            // The new root cannot be my child: if I still list it, that is stale.
            children.remove(root);
        }
        for (NodeId child : children) {
            env.send(child, new NewRoot(root));
        }
    }

    private void onRejoin(Env env, NodeId from, Rejoin rejoin) {
        env.send(from, new Remove());
        if (from.equals(parent)) {
            detachAndJoin(env, rejoin.via() != null ? rejoin.via() : root);
        }
    }

    // ---- from child to parent ----

    private void onHeartbeat(Env env, NodeId from) {
        if (children.contains(from)) {
            lastHeardMillis.put(from, env.nowMillis());
        } else if (detaching.contains(from)) {
            env.send(from, new Rejoin(joinTarget)); // my first Rejoin was lost
        } else if (state == JoinState.JOINED) {
            env.send(from, new Rejoin(root)); // I am not your parent (any more): join my tree again
        }
        // A node that is not in a tree itself has nowhere to send the sender: it lets the sender time it out.
    }

    private void onRemove(Env env, NodeId from) {
        removeChild(env, from);
        if (detaching.remove(from) && detaching.isEmpty() && detachTimer != null) {
            env.cancelTimer(detachTimer);
            detachTimer = null;
            sendJoin(env);
        }
    }

    private void removeChild(Env env, NodeId child) {
        if (children.remove(child)) {
            lastHeardMillis.remove(child);
            for (NodeId other : children) {
                env.send(other, new UpdateSiblings(root, siblingsOf(other)));
            }
        }
    }

    private List<NodeId> siblingsOf(NodeId child) {
        List<NodeId> others = new ArrayList<>(children);
        others.remove(child);
        return List.copyOf(others);
    }

    // ---- recovery ----

    private void scheduleRecovery(Env env) {
        recoveryTimer = env.setTimer(Duration.ofMillis(RECOVERY_INTERVAL_MILLIS), RECOVERY_TAG);
    }

    private void onRecovery(Env env) {
        long now = env.nowMillis();
        ticks++;
        if (state == JoinState.JOINED && parent != null) {
            env.send(parent, new Heartbeat());
            if (now - lastHeardMillis.getOrDefault(parent, now) > PARENT_TIMEOUT_MILLIS) {
                parentFailed(env);
            }
        }
        for (NodeId child : List.copyOf(children)) {
            if (now - lastHeardMillis.getOrDefault(child, now) > CHILD_TIMEOUT_MILLIS) {
                env.log("child " + child + " failed");
                children.remove(child);
                lastHeardMillis.remove(child);
            }
        }
        for (NodeId child : children) {
            env.send(child, new UpdateSiblings(root, siblingsOf(child)));
        }
        if (state == JoinState.JOINED && ticks % PROBE_EVERY_TICKS == 0) {
            probe(env);
        }
    }

    /** Mace's recovery probe: tell one peer outside my neighbourhood which root I am under. */
    private void probe(Env env) {
        TreeSet<NodeId> neighbourhood = new TreeSet<>(children);
        if (parent != null) {
            neighbourhood.add(parent);
        }
        neighbourhood.add(root);
        NodeId candidate = nextPeer(lastProbed, neighbourhood);
        lastProbed = candidate;
        if (!neighbourhood.contains(candidate)) {
            env.send(candidate, new Probe(root));
        }
    }

    private void parentFailed(Env env) {
        NodeId failed = parent;
        lastHeardMillis.remove(failed);
        env.log("parent " + failed + " failed");
        if (failed.equals(root)) {
            NodeId smallest = self;
            for (NodeId sibling : siblings) {
                if (sibling.compareTo(smallest) < 0) {
                    smallest = sibling;
                }
            }
            if (smallest.equals(self)) {
                promote(env);
            } else {
                joinWithSubtree(env, smallest);
            }
        } else {
            detachAndJoin(env, root);
        }
    }

    /** The smallest child of a failed root takes over as root, keeping its subtree. */
    private void promote(Env env) {
        parent = null;
        root = self;
        if (bug != Bug.ROOT_KEEPS_SIBLINGS) {
            siblings.clear();
        }
        env.log("the root failed: I am the root");
        for (NodeId child : children) {
            env.send(child, new NewRoot(self));
        }
    }

    /**
     * After the root failed, a child that is not the smallest joins the smallest one, its sibling, directly and
     * keeps its subtree (as Mace's RandTree): the sibling's tree and this subtree are disjoint. Until it is
     * placed, this node is the root its subtree hears of.
     */
    private void joinWithSubtree(Env env, NodeId sibling) {
        enterJoining(sibling);
        root = self;
        sendJoin(env);
    }

    /**
     * Leaves the tree to join again through {@code target}: tells the children to rejoin, and joins once they
     * have left or must have noticed, so that this node is never placed under one of its own descendants.
     */
    private void detachAndJoin(Env env, NodeId target) {
        if (target.equals(self)) {
            target = firstTarget();
        }
        enterJoining(target);
        cancelJoinTimer(env);
        for (NodeId child : children) {
            env.send(child, new Rejoin(target));
            lastHeardMillis.remove(child);
        }
        detaching.addAll(children);
        children.clear();
        if (detachTimer != null) {
            env.cancelTimer(detachTimer);
            detachTimer = null;
        }
        if (detaching.isEmpty()) {
            sendJoin(env);
        } else {
            detachTimer = env.setTimer(Duration.ofMillis(DETACH_WAIT_MILLIS), DETACH_TAG);
        }
    }

    // ---- merging trees ----

    private void onProbe(Env env, Probe probe) {
        if (state != JoinState.JOINED || probe.root().equals(root)) {
            return;
        }
        if (root.compareTo(probe.root()) < 0) {
            env.send(probe.root(), new ProbeJoin(root));
        } else if (self.equals(root)) {
            giveUpRoot(env, probe.root());
        } else {
            env.send(root, new ProbeJoin(probe.root()));
        }
    }

    private void onProbeJoin(Env env, ProbeJoin probeJoin) {
        if (isRoot() && probeJoin.root().compareTo(self) < 0) {
            giveUpRoot(env, probeJoin.root());
        }
    }

    /**
     * A root that learned of a more eligible root joins it, taking its tree along; if that root does not answer,
     * it stays the root of its tree.
     */
    private void giveUpRoot(Env env, NodeId moreEligible) {
        env.log("joining the more eligible root " + moreEligible);
        removeChild(env, moreEligible);
        state = JoinState.JOINING;
        joinTarget = moreEligible;
        joinTries = 0;
        givingUpRoot = true;
        sendJoin(env);
    }
}
