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
 * <p>Threading: handlers run on the node's handler thread; {@link #pause()}, {@link #resume()}, {@link #completed()}
 * and {@link #inFlight()} may be called from any thread.
 */
public class KvClient implements WorkloadDriver {
    static final int WINDOW = 32;
    static final int KEYS = 1000;
    static final long TICK_MILLIS = 5;
    private static final String TICK = "tick";

    private final AtomicLong completed = new AtomicLong();
    private volatile boolean paused;
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
            refill(env);
        }
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        refill(env);
        env.setTimer(Duration.ofMillis(TICK_MILLIS), TICK);
    }

    private void refill(Env env) {
        while (!paused && inFlight < WINDOW) {
            long request = nextRequest++;
            String key = "k" + (request * 7919 % KEYS);
            Object message = request % 5 == 0 ? new KvMessages.Get(request, key)
                    : new KvMessages.Put(request, key, "value-" + request);
            env.send(leader, message);
            inFlight++;
        }
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
