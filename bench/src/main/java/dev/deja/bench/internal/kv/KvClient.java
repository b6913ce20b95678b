package dev.deja.bench.internal.kv;

import dev.deja.node.Env;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.WorkloadDriver;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The key-value workload: keeps {@value #WINDOW} requests in flight at the leader (four puts to one get, over
 * {@value #KEYS} keys) and sends the next one as soon as an answer comes back, so the cluster runs as fast as it
 * can. It never finishes by itself. While paused ({@link #pause()}) it lets the requests in flight complete and
 * sends no new ones; a tick every {@value #TICK_MILLIS} ms refills the window after {@link #resume()}.
 *
 * <p>Paced ({@link #resumeAt(long)}), it sends requests at a fixed rate instead, whatever the answers: at each
 * tick, every request due since the pace began (up to {@value #PACED_MAX_IN_FLIGHT} in flight, so that a cluster
 * that cannot keep up is not flooded). A paced cluster runs below its capacity, as most deployments do.
 *
 * <p>Threading: handlers run on the node's handler thread; {@link #pause()}, {@link #resume()}, {@link #completed()}
 * and {@link #inFlight()} may be called from any thread.
 */
public class KvClient implements WorkloadDriver {
    static final int WINDOW = 32;
    static final int KEYS = 1000;
    static final long TICK_MILLIS = 5;
    static final int PACED_MAX_IN_FLIGHT = 4096;
    private static final long PACED_TICK_MILLIS = 1;
    private static final String TICK = "tick";

    private final AtomicLong completed = new AtomicLong();
    private volatile boolean paused;
    private volatile long pacedOpsPerSecond; // 0 when not paced
    private volatile int paceGeneration; // bumped by every resumeAt (on the bench's one thread), before the rate is set
    private int pacingGeneration; // the pace the handler counts for, with its start and what it sent since
    private long pacingSinceMillis;
    private long pacingSent;
    private volatile int inFlight;
    private NodeId leader;
    private long nextRequest = 1;

    public KvClient() {
        this(false);
    }

    /** A client that starts paused when {@code startPaused}. */
    protected KvClient(boolean startPaused) {
        this.paused = startPaused;
    }

    @Override
    public void onStart(Env env) {
        leader = env.peers().stream().sorted().findFirst().orElseThrow(() ->
                new IllegalStateException("the key-value client needs at least one replica"));
        refill(env);
        env.setTimer(Duration.ofMillis(TICK_MILLIS), TICK);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof KvMessages.PutDone || message instanceof KvMessages.GetDone) {
            inFlight--;
            completed.incrementAndGet();
            if (pacedOpsPerSecond == 0) {
                refill(env); // a paced client sends at its ticks only
            }
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        refill(env);
        env.setTimer(Duration.ofMillis(pacedOpsPerSecond > 0 ? PACED_TICK_MILLIS : TICK_MILLIS), TICK);
    }

    private void refill(Env env) {
        long rate = pacedOpsPerSecond;
        if (rate > 0) {
            pace(env, rate);
            return;
        }
        while (!paused && inFlight < WINDOW) {
            send(env);
        }
    }

    /** Sends the requests due at {@code rate} since the handler first saw this pace. */
    private void pace(Env env, long rate) {
        long now = env.nowMillis();
        int generation = paceGeneration;
        if (generation != pacingGeneration) {
            pacingGeneration = generation;
            pacingSinceMillis = now;
            pacingSent = 0;
        }
        long due = (now - pacingSinceMillis) * rate / 1000;
        while (!paused && pacingSent < due && inFlight < PACED_MAX_IN_FLIGHT) {
            send(env);
            pacingSent++;
        }
    }

    private void send(Env env) {
        long request = nextRequest++;
        String key = "k" + (request * 7919 % KEYS);
        Object message = request % 5 == 0 ? new KvMessages.Get(request, key)
                : new KvMessages.Put(request, key, "value-" + request);
        env.send(leader, message);
        inFlight++;
    }

    /** Requests the client keeps in flight. */
    public static int window() {
        return WINDOW;
    }

    /** Sends no new requests until {@link #resume()}. */
    public void pause() {
        paused = true;
    }

    /** Fills the window again from the next tick on. */
    public void resume() {
        pacedOpsPerSecond = 0;
        paused = false;
    }

    /** Sends {@code opsPerSecond} requests a second from the next tick on, answered or not. */
    public void resumeAt(long opsPerSecond) {
        if (opsPerSecond <= 0) {
            throw new IllegalArgumentException("a pace is a positive number of operations a second, not " + opsPerSecond);
        }
        paceGeneration++;
        pacedOpsPerSecond = opsPerSecond;
        paused = false;
    }

    /** Answers received since the start. */
    public long completed() {
        return completed.get();
    }

    /** Requests sent and not yet answered. */
    public int inFlight() {
        return inFlight;
    }

    @Override
    public boolean finished() {
        return false;
    }

    /** The same client, paused until {@link #resume()}: a benchmark starts several clusters before it loads one. */
    public static final class Gated extends KvClient {
        public Gated() {
            super(true);
        }
    }
}
