package dev.deja.examples.store;

import dev.deja.examples.store.StoreMessage.Copy;
import dev.deja.examples.store.StoreMessage.Drop;
import dev.deja.examples.store.StoreMessage.Heartbeat;
import dev.deja.examples.store.StoreMessage.MoveDone;
import dev.deja.examples.store.StoreMessage.MoveRefused;
import dev.deja.examples.store.StoreMessage.MoveRejected;
import dev.deja.examples.store.StoreMessage.MoveRequest;
import dev.deja.examples.store.StoreMessage.Publish;
import dev.deja.examples.store.StoreMessage.PublishAck;
import dev.deja.examples.store.StoreMessage.Put;
import dev.deja.examples.store.StoreMessage.PutDone;
import dev.deja.examples.store.StoreMessage.Store;
import dev.deja.examples.store.StoreMessage.Unpublish;
import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import dev.deja.node.TimerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A node of the replicated object store, after BitVault (WiDS Checker paper, section 4.3).
 *
 * <p>Objects hash onto a ring; the <em>owner</em> of an object is the first live node at or after its position
 * (in this node's membership view) and keeps the object's {@link IndexEntry} (which nodes hold its replicas) in
 * memory only. Replicas are durable in {@link Storage}. A holder <em>publishes</em> each replica to the owner
 * until the owner acknowledges, and again whenever the owner changes. Publish and Unpublish messages carry
 * versions, so the owner ignores one the network delivered after a later one from the same node.
 *
 * <ul>
 *   <li>Membership: heartbeats to every peer; a peer not heard for {@link #FAILURE_TIMEOUT_MILLIS} (argument
 *       {@code failure-timeout-ms}) is declared failed, and one heard again rejoins.</li>
 *   <li>Put: the owner places {@link #DEGREE} replicas on the object's successors, retries until the index
 *       lists that many, and answers the client.</li>
 *   <li>Repair: when a holder is declared failed, its owners drop it from their entries and copy a surviving
 *       replica to new nodes, retrying until the degree is back; after any membership change the owner also
 *       repairs entries it took over with too few holders.</li>
 *   <li>Remove-extra-replicas: periodically, an entry with more than {@link #DEGREE} holders loses its newest
 *       ones (over-repair after retries and transient failures).</li>
 *   <li>Load balancing: a node with at least {@link #BALANCE_THRESHOLD} more replicas than the least loaded live
 *       peer moves one replica there. The move goes through the owner, which swaps source for target in the
 *       index at once, so remove-extra-replicas never sees the target as an extra.</li>
 *   <li>Transient failures: heartbeats carry the incarnation; a peer whose incarnation grew restarted and lost its
 *       index, so holders publish to it again, and a restarted node repairs what it re-learned too thin.</li>
 * </ul>
 *
 * <p>Bugs ({@code bug} argument): {@code balance-race} moves replicas without the owner (copy, wait for the
 * target to be indexed, delete, unpublish), racing remove-extra-replicas, which may delete the new copy while
 * the source deletes the old one; {@code transient-failure} ignores incarnations, so a node restarted faster
 * than the failure-detection timeout is never re-published to and its objects' replicas stay orphaned.
 */
public final class StoreNode implements Node {
    /** The bugs this node understands, name to description, in CLI order. */
    static final Map<String, String> BUGS = bugs();

    /** Replicas every object should have. */
    public static final int DEGREE = 3;
    static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(500);
    /**
     * By default, a peer not heard from for this long is declared failed; restarts faster than this go unnoticed.
     * The {@code failure-timeout-ms} argument changes it.
     */
    public static final long FAILURE_TIMEOUT_MILLIS = 4000;
    /** The node argument that sets the failure-detection timeout in milliseconds. */
    public static final String FAILURE_TIMEOUT_ARG = "failure-timeout-ms";
    static final long PUBLISH_RETRY_MILLIS = 500;
    static final long REPAIR_RETRY_MILLIS = 1000;
    /** After a membership change or a restart, how long publishes may take before thin entries are repaired. */
    static final long REPAIR_GRACE_MILLIS = 1000;
    static final Duration REMOVE_EXTRA_INTERVAL = Duration.ofMillis(200);
    static final Duration BALANCE_INTERVAL = Duration.ofMillis(500);
    static final int BALANCE_THRESHOLD = 2;
    static final long MOVE_TIMEOUT_MILLIS = 2000;
    static final int MAX_PUT_HOPS = 3;

    private static final String HEARTBEAT_TAG = "heartbeat";
    private static final String REMOVE_EXTRA_TAG = "remove-extra";
    private static final String BALANCE_TAG = "balance";
    private static final String REPLICA_LIST_KEY = "replicas";
    private static final String REPLICA_KEY_PREFIX = "replica/";

    /** Which of the paper's bugs this node has. */
    private enum Bug {
        NONE, BALANCE_RACE, TRANSIENT_FAILURE;

        static Bug named(String name) {
            return name == null ? NONE : valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    private Bug bug;
    private NodeId self;
    private int incarnation;
    private Ring ring;
    private long failureTimeoutMillis;

    // Membership. Exposed to the checker: position, view, viewChangedAt.
    private long position;
    private final TreeSet<NodeId> view = new TreeSet<>();
    private long viewChangedAt;
    private final TreeMap<NodeId, Long> lastHeard = new TreeMap<>();
    private final TreeMap<NodeId, Integer> peerLoads = new TreeMap<>();
    private final TreeMap<NodeId, Integer> peerIncarnations = new TreeMap<>();

    // Holder side.
    private final TreeMap<String, Replica> replicas = new TreeMap<>();
    /** balance-race only: objects moved here, to the node that moved them, until the move is confirmed. */
    private final TreeMap<String, NodeId> moveIns = new TreeMap<>();
    /** Counts this incarnation's Publish and Unpublish messages, for their versions. */
    private long publishCount;
    private String moving;
    private NodeId movingTo;
    private long movingUntilMillis;
    /** Moves refused since this node's replicas last changed, as "object target": not worth asking again. */
    private final TreeSet<String> refusedMoves = new TreeSet<>();

    // Owner side, in memory only.
    private final TreeMap<String, IndexEntry> index = new TreeMap<>();
    /** When to look for entries with too few holders after a membership change; -1 when not due. */
    private long repairCheckAtMillis = -1;

    public StoreNode() {
    }

    private static Map<String, String> bugs() {
        Map<String, String> bugs = new LinkedHashMap<>();
        bugs.put("balance-race", "load balancing moves a replica without the owner and races remove-extra-replicas, "
                + "which deletes the new copy while the source deletes the old one: 3 replicas become 2 "
                + "(the paper's replica loss due to protocol races)");
        bugs.put("transient-failure", "a node restarted faster than the failure-detection timeout loses its in-memory "
                + "index and nobody re-publishes to it (the paper's mishandling of transient failures)");
        return Collections.unmodifiableMap(bugs);
    }

    @Override
    public void onStart(Env env) {
        String bug = env.args().get("bug");
        if (bug != null && !BUGS.containsKey(bug)) {
            throw new IllegalArgumentException("unknown store bug '" + bug + "'; valid bugs: "
                    + String.join(", ", BUGS.keySet()));
        }
        this.bug = Bug.named(bug);
        failureTimeoutMillis = failureTimeout(env.args().get(FAILURE_TIMEOUT_ARG));
        self = env.self();
        incarnation = env.incarnation();
        List<NodeId> all = new ArrayList<>(env.peers());
        all.add(self);
        ring = new Ring(all);
        position = Ring.position(self.value());

        // Every peer counts as live until the failure detector says otherwise.
        long now = env.nowMillis();
        view.addAll(all);
        viewChangedAt = now;
        for (NodeId peer : env.peers()) {
            lastHeard.put(peer, now);
        }
        for (String objectId : readReplicaList(env.storage())) {
            replicas.put(objectId, new Replica(objectId));
        }
        if (incarnation > 1) {
            env.log("restarted with " + replicas.size() + " replicas and an empty index");
            if (this.bug != Bug.TRANSIENT_FAILURE) {
                // Re-learn the index: holders publish again once they see the new incarnation; then repair.
                repairCheckAtMillis = now + REPAIR_GRACE_MILLIS;
            }
        }
        sendHeartbeats(env);
        for (Replica replica : replicas.values()) {
            publish(env, replica);
        }
        env.setTimer(HEARTBEAT_INTERVAL, HEARTBEAT_TAG);
        env.setTimer(Duration.ofMillis(1 + env.random().nextLong(REMOVE_EXTRA_INTERVAL.toMillis())), REMOVE_EXTRA_TAG);
        env.setTimer(Duration.ofMillis(1 + env.random().nextLong(BALANCE_INTERVAL.toMillis())), BALANCE_TAG);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (!(message instanceof StoreMessage storeMessage)) {
            env.log("ignored an unexpected " + message.getClass().getSimpleName() + " from " + from);
            return;
        }
        switch (storeMessage) {
            case Heartbeat heartbeat -> onHeartbeat(env, from, heartbeat);
            case Put put -> onPut(env, put);
            case Store store -> onStore(env, store);
            case Publish publish -> onPublish(env, from, publish);
            case PublishAck ack -> onPublishAck(env, from, ack);
            case Copy copy -> onCopy(env, copy);
            case Drop drop -> onDrop(env, drop);
            case MoveRequest request -> onMoveRequest(env, from, request);
            case MoveRejected rejected -> moveRefused(rejected.objectId());
            case MoveRefused refused -> moveRefused(refused.objectId());
            case MoveDone done -> onMoveDone(env, done);
            case Unpublish unpublish -> onUnpublish(from, unpublish);
            case PutDone _ -> env.log("ignored a PutDone from " + from);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        switch (String.valueOf(tag)) {
            case HEARTBEAT_TAG -> {
                onHeartbeatTick(env);
                env.setTimer(HEARTBEAT_INTERVAL, HEARTBEAT_TAG);
            }
            case REMOVE_EXTRA_TAG -> {
                removeExtraReplicas(env);
                env.setTimer(REMOVE_EXTRA_INTERVAL, REMOVE_EXTRA_TAG);
            }
            case BALANCE_TAG -> {
                balanceLoad(env);
                env.setTimer(BALANCE_INTERVAL, BALANCE_TAG);
            }
            default -> env.log("ignored an unknown timer " + tag);
        }
    }

    private static long failureTimeout(String argument) {
        if (argument == null) {
            return FAILURE_TIMEOUT_MILLIS;
        }
        try {
            long millis = Long.parseLong(argument);
            if (millis > 2 * HEARTBEAT_INTERVAL.toMillis()) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(FAILURE_TIMEOUT_ARG + " must be a number of milliseconds above "
                + 2 * HEARTBEAT_INTERVAL.toMillis() + ", was '" + argument + "'");
    }

    // ---- Membership ----

    private void sendHeartbeats(Env env) {
        Heartbeat heartbeat = new Heartbeat(incarnation, replicas.size());
        for (NodeId peer : env.peers()) {
            env.send(peer, heartbeat);
        }
    }

    private void onHeartbeat(Env env, NodeId from, Heartbeat heartbeat) {
        lastHeard.put(from, env.nowMillis());
        peerLoads.put(from, heartbeat.load());
        Integer known = peerIncarnations.put(from, heartbeat.incarnation());
        if (!view.contains(from)) {
            view.add(from);
            membershipChanged(env, from + " joined", Set.of());
        }
        if (bug != Bug.TRANSIENT_FAILURE && !Integer.valueOf(heartbeat.incarnation()).equals(known)) {
            republishToRestarted(env, from, heartbeat.incarnation());
        }
    }

    /**
     * A peer came back (perhaps faster than the failure detector): every replica an earlier incarnation of it
     * acknowledged is missing from its index now, so publish those again. Also when this node never heard of the
     * earlier incarnation (it was down itself), since the acknowledgement says which incarnation gave it.
     */
    private void republishToRestarted(Env env, NodeId peer, int peerIncarnation) {
        int count = 0;
        for (Replica replica : replicas.values()) {
            if (peer.equals(replica.publishedTo) && replica.publishedIncarnation < peerIncarnation) {
                replica.publishedTo = null;
                publish(env, replica);
                count++;
            }
        }
        if (count > 0) {
            env.log(peer + " restarted; published " + count + " replicas to it again");
        }
    }

    private void onHeartbeatTick(Env env) {
        long now = env.nowMillis();
        sendHeartbeats(env);
        Set<NodeId> failed = new TreeSet<>();
        for (NodeId peer : view) {
            if (!peer.equals(self) && now - lastHeard.get(peer) > failureTimeoutMillis) {
                failed.add(peer);
            }
        }
        if (!failed.isEmpty()) {
            view.removeAll(failed);
            membershipChanged(env, failed + " failed", failed);
        }
        for (Replica replica : replicas.values()) {
            NodeId owner = ring.owner(replica.key, view);
            if (!owner.equals(replica.publishedTo) && now - replica.publishedAtMillis >= PUBLISH_RETRY_MILLIS) {
                publish(env, replica);
            }
        }
        repair(env, now);
    }

    private void membershipChanged(Env env, String change, Set<NodeId> failed) {
        long now = env.nowMillis();
        viewChangedAt = now;
        env.log("membership: " + change + "; view " + view);
        List<String> handedOff = new ArrayList<>();
        for (IndexEntry entry : index.values()) {
            if (!self.equals(ring.owner(entry.key, view))) {
                handedOff.add(entry.objectId);
            } else if (entry.holders.removeAll(failed)) {
                entry.repairing = true;
                entry.nextRepairMillis = now;
            }
            if (entry.move != null && (failed.contains(entry.move.source()) || failed.contains(entry.move.target()))) {
                entry.move = null;
            }
        }
        handedOff.forEach(index::remove); // the holders publish to the new owner
        for (Replica replica : replicas.values()) {
            if (!ring.owner(replica.key, view).equals(replica.publishedTo)) {
                replica.publishedTo = null;
                publish(env, replica);
            }
        }
        // Entries taken over from a failed owner may miss a holder that failed with it.
        repairCheckAtMillis = now + REPAIR_GRACE_MILLIS;
    }

    // ---- Holder ----

    private void publish(Env env, Replica replica) {
        replica.publishedAtMillis = env.nowMillis();
        env.send(ring.owner(replica.key, view), new Publish(replica.objectId, nextVersion()));
    }

    private void unpublish(Env env, long key, String objectId) {
        env.send(ring.owner(key, view), new Unpublish(objectId, nextVersion()));
    }

    /** Later than every version this node sent before, in this incarnation or an earlier one. */
    private long nextVersion() {
        return ((long) incarnation << 32) | ++publishCount;
    }

    private void onStore(Env env, Store store) {
        if (replicas.containsKey(store.objectId())) {
            if (store.movedFrom() != null) {
                env.send(store.movedFrom(), new MoveRefused(store.objectId()));
            }
            publish(env, replicas.get(store.objectId())); // whoever placed it wants it indexed
            return;
        }
        Storage storage = env.storage();
        storage.write(REPLICA_KEY_PREFIX + store.objectId(), bytes(store.data()));
        Replica replica = new Replica(store.objectId());
        replicas.put(store.objectId(), replica);
        refusedMoves.clear();
        writeReplicaList(storage);
        storage.sync();
        if (store.movedFrom() != null) {
            moveIns.put(store.objectId(), store.movedFrom());
        }
        publish(env, replica);
    }

    private void onPublishAck(Env env, NodeId from, PublishAck ack) {
        Replica replica = replicas.get(ack.objectId());
        if (replica == null) {
            return;
        }
        Integer incarnation = peerIncarnations.get(from);
        if (bug != Bug.TRANSIENT_FAILURE && incarnation != null && ack.incarnation() < incarnation) {
            // Sent before the owner restarted (and lost its index): it does not count.
            replica.publishedTo = null;
            publish(env, replica);
            return;
        }
        replica.publishedTo = from;
        replica.publishedIncarnation = ack.incarnation();
        NodeId source = moveIns.remove(ack.objectId());
        if (source != null) {
            // balance-race: the copy is indexed, so the source may delete its own; the owner is not told.
            env.send(source, new MoveDone(ack.objectId()));
        }
    }

    private void onCopy(Env env, Copy copy) {
        if (!replicas.containsKey(copy.objectId())) {
            return; // the owner's index is stale; its retry picks another source
        }
        env.send(copy.target(), new Store(copy.objectId(), readData(env, copy.objectId()), null));
    }

    private void onDrop(Env env, Drop drop) {
        Replica replica = replicas.get(drop.objectId());
        if (replica != null) {
            env.log("dropping the replica of " + drop.objectId());
            deleteReplica(env, drop.objectId());
            unpublish(env, replica.key, drop.objectId());
        }
        moveEnded(drop.objectId());
    }

    private void deleteReplica(Env env, String objectId) {
        replicas.remove(objectId);
        moveIns.remove(objectId);
        refusedMoves.clear();
        Storage storage = env.storage();
        storage.write(REPLICA_KEY_PREFIX + objectId, null);
        writeReplicaList(storage);
        storage.sync();
    }

    // ---- Owner ----

    private boolean owns(long key) {
        return self.equals(ring.owner(key, view));
    }

    private void onPut(Env env, Put put) {
        long key = Ring.position(put.objectId());
        NodeId owner = ring.owner(key, view);
        if (!owner.equals(self)) {
            if (put.hops() < MAX_PUT_HOPS) {
                env.send(owner, new Put(put.objectId(), put.data(), put.replyTo(), put.hops() + 1));
            }
            return; // the client retries
        }
        IndexEntry entry = index.computeIfAbsent(put.objectId(), IndexEntry::new);
        if (entry.holders.size() >= DEGREE) {
            env.send(put.replyTo(), new PutDone(put.objectId()));
            return;
        }
        entry.waitingClients.add(put.replyTo());
        entry.pendingData = put.data();
        for (NodeId target : ring.successors(key, view, DEGREE)) {
            if (!entry.holders.contains(target)) {
                env.send(target, new Store(put.objectId(), put.data(), null));
            }
        }
        // The owner sees the put through, whether or not the client asks again.
        entry.repairing = true;
        entry.nextRepairMillis = env.nowMillis() + REPAIR_RETRY_MILLIS;
    }

    private void onPublish(Env env, NodeId from, Publish publish) {
        long key = Ring.position(publish.objectId());
        if (!owns(key)) {
            return; // views disagree for now; the holder publishes again
        }
        IndexEntry entry = index.computeIfAbsent(publish.objectId(), IndexEntry::new);
        if (!entry.newer(from, publish.version())) {
            return; // overtaken by a later Publish or Unpublish of the same node
        }
        entry.holders.add(from);
        if (entry.move != null && entry.move.target().equals(from)) {
            // The approved move is done: the source leaves the index in the same step the target enters it.
            NodeId source = entry.move.source();
            entry.move = null;
            if (entry.holders.remove(source)) {
                env.send(source, new Drop(publish.objectId()));
            }
        }
        env.send(from, new PublishAck(publish.objectId(), incarnation));
        if (entry.holders.size() >= DEGREE) {
            entry.repairing = false;
            entry.pendingData = null;
            for (NodeId client : entry.waitingClients) {
                env.send(client, new PutDone(publish.objectId()));
            }
            entry.waitingClients.clear();
        }
    }

    private void onUnpublish(NodeId from, Unpublish unpublish) {
        if (!owns(Ring.position(unpublish.objectId()))) {
            return;
        }
        // Kept even when empty: its versions make a Publish the network delivers late harmless.
        IndexEntry entry = index.computeIfAbsent(unpublish.objectId(), IndexEntry::new);
        if (entry.newer(from, unpublish.version())) {
            entry.holders.remove(from);
        }
    }

    /**
     * Places missing replicas for every entry under repair (a holder failed, or a put is incomplete) that is still
     * short of holders: from the put's data if it has it, else by copying a surviving replica.
     */
    private void repair(Env env, long now) {
        if (repairCheckAtMillis >= 0 && now >= repairCheckAtMillis) {
            repairCheckAtMillis = -1;
            for (IndexEntry entry : index.values()) {
                if (entry.holders.size() < DEGREE && !entry.repairing) {
                    entry.repairing = true;
                    entry.nextRepairMillis = now;
                }
            }
        }
        for (IndexEntry entry : index.values()) {
            if (!entry.repairing) {
                continue;
            }
            if (entry.holders.size() >= DEGREE) {
                entry.repairing = false;
                continue;
            }
            if (now < entry.nextRepairMillis) {
                continue;
            }
            if (entry.holders.isEmpty() && entry.pendingData == null) {
                env.log("cannot repair " + entry.objectId + ": no replica left");
                entry.repairing = false;
                continue;
            }
            int missing = DEGREE - entry.holders.size();
            for (NodeId target : ring.successors(entry.key, view, view.size())) {
                if (missing == 0) {
                    break;
                }
                if (entry.holders.contains(target)) {
                    continue;
                }
                if (entry.pendingData != null) {
                    env.send(target, new Store(entry.objectId, entry.pendingData, null));
                } else {
                    env.send(entry.holders.getFirst(), new Copy(entry.objectId, target));
                }
                missing--;
            }
            env.log("repairing " + entry.objectId + " (holders " + entry.holders + ")");
            entry.nextRepairMillis = now + REPAIR_RETRY_MILLIS;
        }
    }

    /** Deletes the newest holders of entries with more than {@link #DEGREE}: over-repair from retries. */
    private void removeExtraReplicas(Env env) {
        long now = env.nowMillis();
        for (IndexEntry entry : index.values()) {
            if (entry.holders.size() <= DEGREE || entry.moving(now)) {
                continue;
            }
            List<NodeId> newest = new ArrayList<>(entry.holders).subList(DEGREE, entry.holders.size());
            for (NodeId extra : List.copyOf(newest)) {
                entry.holders.remove(extra);
                env.send(extra, new Drop(entry.objectId));
            }
            env.log("removed extra replicas of " + entry.objectId + " on " + newest + "; holders " + entry.holders);
        }
    }

    // ---- Load balancing ----

    private void balanceLoad(Env env) {
        long now = env.nowMillis();
        if (moving != null && now < movingUntilMillis) {
            return;
        }
        moving = null;
        // The least loaded peers first; the first with an indexed replica of ours not refused there gets one.
        List<NodeId> targets = view.stream().filter(peer -> !peer.equals(self) && peerLoads.containsKey(peer)
                        && replicas.size() - peerLoads.get(peer) >= BALANCE_THRESHOLD)
                .sorted(Comparator.comparing((NodeId peer) -> peerLoads.get(peer)).thenComparing(peer -> peer))
                .toList();
        for (NodeId target : targets) {
            List<Replica> movable = replicas.values().stream().filter(r -> r.publishedTo != null
                    && !refusedMoves.contains(r.objectId + " " + target)).toList();
            if (!movable.isEmpty()) {
                move(env, movable.get(env.random().nextInt(movable.size())), target, now);
                return;
            }
        }
    }

    private void move(Env env, Replica replica, NodeId target, long now) {
        int targetLoad = peerLoads.get(target);
        moving = replica.objectId;
        movingTo = target;
        movingUntilMillis = now + MOVE_TIMEOUT_MILLIS;
        peerLoads.put(target, targetLoad + 1); // until its next heartbeat says otherwise
        env.log("moving " + replica.objectId + " to " + target + " (load " + replicas.size() + " vs " + targetLoad + ")");
        if (bug == Bug.BALANCE_RACE) {
            env.send(target, new Store(replica.objectId, readData(env, replica.objectId), self));
        } else {
            env.send(replica.publishedTo, new MoveRequest(replica.objectId, target));
        }
    }

    /** The owner approves a move if the entry is settled: exactly the degree, source in, target out, no move. */
    private void onMoveRequest(Env env, NodeId from, MoveRequest request) {
        long now = env.nowMillis();
        IndexEntry entry = index.get(request.objectId());
        boolean approved = entry != null && owns(entry.key) && !entry.repairing && !entry.moving(now)
                && entry.holders.size() == DEGREE && entry.holders.contains(from)
                && !entry.holders.contains(request.target()) && view.contains(request.target());
        if (!approved) {
            env.send(from, new MoveRejected(request.objectId()));
            return;
        }
        entry.move = new IndexEntry.Move(from, request.target(), now + MOVE_TIMEOUT_MILLIS);
        env.send(from, new Copy(request.objectId(), request.target()));
    }

    /** balance-race: the target is indexed, so delete the local replica and tell the owner. */
    private void onMoveDone(Env env, MoveDone done) {
        Replica replica = replicas.get(done.objectId());
        if (replica != null) {
            env.log("moved " + done.objectId() + " away; deleting the local replica");
            deleteReplica(env, done.objectId());
            unpublish(env, replica.key, done.objectId());
        }
        moveEnded(done.objectId());
    }

    private void moveRefused(String objectId) {
        if (objectId.equals(moving)) {
            refusedMoves.add(objectId + " " + movingTo);
        }
        moveEnded(objectId);
    }

    private void moveEnded(String objectId) {
        if (objectId.equals(moving)) {
            moving = null;
        }
    }

    // ---- Storage ----

    private static List<String> readReplicaList(Storage storage) {
        return storage.read(REPLICA_LIST_KEY).map(StoreNode::string)
                .map(text -> text.isEmpty() ? List.<String>of() : List.of(text.split("\n"))).orElse(List.of());
    }

    private void writeReplicaList(Storage storage) {
        storage.write(REPLICA_LIST_KEY, bytes(String.join("\n", replicas.keySet())));
    }

    private static String readData(Env env, String objectId) {
        return env.storage().read(REPLICA_KEY_PREFIX + objectId).map(StoreNode::string).orElse("");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ---- For tests and the checker ----

    /** The objects this node holds replicas of. */
    Set<String> replicaIds() {
        return Collections.unmodifiableSet(replicas.keySet());
    }

    /** The holders of each object this node indexes. */
    Map<String, List<NodeId>> indexHolders() {
        Map<String, List<NodeId>> out = new TreeMap<>();
        index.forEach((id, entry) -> out.put(id, List.copyOf(entry.holders)));
        return out;
    }

    /** The nodes this node considers live, itself included. */
    Set<NodeId> view() {
        return Collections.unmodifiableSet(view);
    }

    long position() {
        return position;
    }

    /** When this node's view last changed (its start counts), by its clock. */
    long viewChangedAt() {
        return viewChangedAt;
    }
}
