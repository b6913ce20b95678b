package demo;

import dev.deja.node.Env;
import dev.deja.node.Exposed;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A replicated counter: a node that receives an {@link Add} from the client applies it and passes it on to its
 * peers as a {@link Replicate}. Every node applies each operation once, however often the network delivers it,
 * unless the cluster file gives it {@code "dedup": "false"}: then a duplicated message is counted twice, and the
 * predicate in predicates.py finds it.
 */
public final class CounterNode implements Node {
    private final Set<Long> applied = new LinkedHashSet<>();
    private long total;
    private boolean dedup = true;

    @Override
    public void onStart(Env env) {
        dedup = !"false".equals(env.args().get("dedup"));
        env.log("counter node up, dedup " + dedup);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        if (message instanceof Add add) {
            if (apply(add.operation())) {
                for (NodeId peer : env.peers()) {
                    env.send(peer, new Replicate(add.operation()));
                }
            }
        } else if (message instanceof Replicate replicate) {
            apply(replicate.operation());
        }
    }

    private boolean apply(long operation) {
        boolean first = applied.add(operation);
        if (first || !dedup) {
            total++;
        }
        return first;
    }

    /** How many times an operation was applied. */
    @Exposed
    public long total() {
        return total;
    }

    /** The distinct operations applied, in order. */
    @Exposed
    public List<Long> applied() {
        return new ArrayList<>(applied);
    }
}
