package dev.deja.examples.store;

import dev.deja.examples.ExampleArguments;
import dev.deja.examples.store.StoreMessage.Put;
import dev.deja.examples.store.StoreMessage.PutDone;
import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;
import java.util.Collections;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The store workload: puts {@link #OBJECTS} objects, one every {@link #PUT_SPACING}, each to a different node
 * (which forwards it to the owner), and puts again every {@link #RETRY_INTERVAL} whatever is not acknowledged, up
 * to {@link #MAX_PUT_ATTEMPTS} times. Once every object is stored (or given up) it keeps the run going for
 * {@link #SETTLE} while load balancing, repair and remove-extra-replicas do their work, so that a check can tell
 * a problem that lasts from one in flight.
 */
public final class StoreClient implements WorkloadDriver {
    /** How many objects the client writes. */
    public static final int OBJECTS = 24;
    static final Duration FIRST_PUT = Duration.ofMillis(200);
    static final Duration PUT_SPACING = Duration.ofMillis(40);
    static final Duration RETRY_INTERVAL = Duration.ofMillis(1000);
    /** After this many puts of one object without an answer the client gives up on it (and logs so). */
    static final int MAX_PUT_ATTEMPTS = 5;
    /** How long the run goes on after the last object is stored, unless {@link #SETTLE_ARG} says otherwise. */
    public static final Duration SETTLE = Duration.ofSeconds(8);
    /**
     * The client argument that sets the settle time in milliseconds: a deployment on a loaded machine, where a
     * restarted node's JVM comes back late, may need longer for a lasting problem to outlast a check's threshold.
     */
    public static final String SETTLE_ARG = "settle-ms";

    private static final String PUT_TAG = "put";
    private static final String RETRY_TAG = "retry";
    private static final String SETTLED_TAG = "settled";

    private int nextObject;
    private int attempts;
    // Written on the handler thread, read by the deployment's thread through stored() and finished().
    private final Set<String> stored = new ConcurrentSkipListSet<>();
    private final TreeMap<String, Long> lastSentMillis = new TreeMap<>();
    private final TreeMap<String, Integer> putAttempts = new TreeMap<>();
    private final Set<String> abandoned = new ConcurrentSkipListSet<>();
    private volatile boolean finished;
    private Duration settle = SETTLE;

    public StoreClient() {
    }

    /** The object ids this client writes, in order. */
    public static String objectId(int index) {
        return String.format("obj-%02d", index);
    }

    @Override
    public void onStart(Env env) {
        settle = Duration.ofMillis(ExampleArguments.intFromTo("store client", SETTLE_ARG, env.args().get(SETTLE_ARG),
                (int) SETTLE.toMillis(), 0, Integer.MAX_VALUE, "milliseconds"));
        env.setTimer(FIRST_PUT, PUT_TAG);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof PutDone done && !abandoned.contains(done.objectId()) && stored.add(done.objectId())) {
            settleIfDone(env);
        }
    }

    private void settleIfDone(Env env) {
        if (stored.size() + abandoned.size() == OBJECTS) {
            env.log((abandoned.isEmpty() ? "every object stored" : "gave up on " + abandoned) + "; settling for "
                    + settle.toMillis() + " ms");
            env.setTimer(settle, SETTLED_TAG);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        switch (String.valueOf(tag)) {
            case PUT_TAG -> {
                put(env, objectId(nextObject++));
                env.setTimer(nextObject < OBJECTS ? PUT_SPACING : RETRY_INTERVAL, nextObject < OBJECTS ? PUT_TAG : RETRY_TAG);
            }
            case RETRY_TAG -> {
                long now = env.nowMillis();
                boolean gaveUp = false;
                for (var sent : new TreeMap<>(lastSentMillis).entrySet()) {
                    String objectId = sent.getKey();
                    if (stored.contains(objectId) || abandoned.contains(objectId)
                            || now - sent.getValue() < RETRY_INTERVAL.toMillis()) {
                        continue;
                    }
                    if (putAttempts.get(objectId) < MAX_PUT_ATTEMPTS) {
                        put(env, objectId);
                    } else {
                        abandoned.add(objectId);
                        gaveUp = true;
                    }
                }
                if (gaveUp) {
                    settleIfDone(env);
                }
                if (stored.size() + abandoned.size() < OBJECTS) {
                    env.setTimer(RETRY_INTERVAL, RETRY_TAG);
                }
            }
            case SETTLED_TAG -> finished = true;
            default -> env.log("ignored an unknown timer " + tag);
        }
    }

    private void put(Env env, String objectId) {
        NodeId node = env.peers().get(attempts++ % env.peers().size());
        lastSentMillis.put(objectId, env.nowMillis());
        putAttempts.merge(objectId, 1, Integer::sum);
        env.send(node, new Put(objectId, "contents of " + objectId, env.self(), 0));
    }

    @Override
    public boolean finished() {
        return finished;
    }

    /** The objects the client gave up on after {@link #MAX_PUT_ATTEMPTS} unanswered puts. */
    public Set<String> abandoned() {
        return Collections.unmodifiableSet(new TreeSet<>(abandoned));
    }

    /** The objects the store acknowledged so far. */
    public Set<String> stored() {
        return Collections.unmodifiableSet(new TreeSet<>(stored));
    }
}
