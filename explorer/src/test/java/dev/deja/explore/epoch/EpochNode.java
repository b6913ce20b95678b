package dev.deja.explore.epoch;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import java.nio.charset.StandardCharsets;

/**
 * Takes a new epoch at every start: the stored one plus one, announced to the {@link EpochWitness} named by its
 * {@code witness} argument. The first incarnation syncs the epoch it stores; a restart does not unless the
 * {@code sync-on-restart} argument is given. The bug needs two crashes (a deep bug, as SAMC calls it): one for a
 * restart to write its epoch unsynced, a second right after that restart to lose it, so that the next restart
 * takes the same epoch again.
 */
public final class EpochNode implements Node {
    public int epoch;

    @Override
    public void onStart(Env env) {
        epoch = env.storage().read("epoch").map(b -> Integer.parseInt(new String(b, StandardCharsets.UTF_8))).orElse(0) + 1;
        env.storage().write("epoch", Integer.toString(epoch).getBytes(StandardCharsets.UTF_8));
        if (env.incarnation() == 1 || env.args().containsKey("sync-on-restart")) {
            env.storage().sync();
        }
        env.send(new NodeId(env.args().get("witness")), "epoch:" + epoch);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        // The witness's acknowledgement: a step after which this node may crash.
    }
}
