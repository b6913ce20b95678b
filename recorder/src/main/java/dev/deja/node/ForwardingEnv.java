package dev.deja.node;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * An {@link Env} that passes every call to another one; a subclass overrides only what it changes (a node that
 * hosts sub-instances giving each its own storage keys, a wrapper that logs what its node observes). Valid, like
 * the delegate, only inside a handler call.
 */
public abstract class ForwardingEnv implements Env {
    private final Env delegate;

    protected ForwardingEnv(Env delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The environment calls are passed to. */
    protected final Env delegate() {
        return delegate;
    }

    @Override
    public NodeId self() {
        return delegate.self();
    }

    @Override
    public List<NodeId> peers() {
        return delegate.peers();
    }

    @Override
    public Map<String, String> args() {
        return delegate.args();
    }

    @Override
    public int incarnation() {
        return delegate.incarnation();
    }

    @Override
    public void send(NodeId to, Object message) {
        delegate.send(to, message);
    }

    @Override
    public TimerId setTimer(Duration delay, Object tag) {
        return delegate.setTimer(delay, tag);
    }

    @Override
    public void cancelTimer(TimerId timer) {
        delegate.cancelTimer(timer);
    }

    @Override
    public long nowMillis() {
        return delegate.nowMillis();
    }

    @Override
    public RandomGenerator random() {
        return delegate.random();
    }

    @Override
    public Storage storage() {
        return delegate.storage();
    }

    @Override
    public void log(String line) {
        delegate.log(line);
    }
}
