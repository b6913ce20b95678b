package dev.deja.explore.epoch;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.util.TreeSet;

/** Hears every epoch {@link EpochNode} takes and acknowledges it; {@code reused} once an epoch comes twice. */
public final class EpochWitness implements Node {
    public final TreeSet<Integer> heard = new TreeSet<>();
    public boolean reused;

    @Override
    public void onStart(Env env) {
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        String text = (String) message;
        if (text.startsWith("epoch:") && !heard.add(Integer.parseInt(text.substring("epoch:".length())))) {
            reused = true;
        }
        env.send(from, "ack");
    }
}
