package dev.deja.bench.internal.kv;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One replica of a small primary-backup key-value store, the throughput workload of the benchmarks. The node
 * with the smallest id leads: it answers reads from its own map, and sends every write to all followers, applying
 * it and answering the client once a majority (itself included) holds it. Followers apply what they are sent and
 * acknowledge. State is in memory only, so the cost of a request is the runtime's (network, dispatch, recording),
 * not the disk's.
 */
public final class KvReplica implements Node {
    private final Map<String, String> data = new HashMap<>();
    private final Map<Long, Pending> pending = new HashMap<>();
    private List<NodeId> followers = List.of();
    private boolean leader;
    private int majority;
    private long nextIndex = 1;
    private long applied;

    /** A write waiting for acknowledgements. */
    private static final class Pending {
        final NodeId client;
        final long request;
        final String key;
        final String value;
        int holders = 1; // the leader

        Pending(NodeId client, long request, String key, String value) {
            this.client = client;
            this.request = request;
            this.key = key;
            this.value = value;
        }
    }

    public KvReplica() {
    }

    @Override
    public void onStart(Env env) {
        List<NodeId> all = new ArrayList<>(env.peers());
        all.add(env.self());
        all.sort(null);
        leader = all.getFirst().equals(env.self());
        majority = all.size() / 2 + 1;
        followers = leader ? List.copyOf(env.peers()) : List.of();
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        switch (message) {
            case KvMessages.Put put when leader -> {
                long index = nextIndex++;
                Pending write = new Pending(from, put.request(), put.key(), put.value());
                if (write.holders >= majority) {
                    commit(env, index, write);
                    return;
                }
                pending.put(index, write);
                KvMessages.Replicate replicate = new KvMessages.Replicate(index, put.key(), put.value());
                for (NodeId follower : followers) {
                    env.send(follower, replicate);
                }
            }
            case KvMessages.Get get when leader -> env.send(from, new KvMessages.GetDone(get.request(), data.get(get.key())));
            case KvMessages.Replicate replicate -> {
                data.put(replicate.key(), replicate.value());
                applied = replicate.index();
                env.send(from, new KvMessages.Ack(replicate.index()));
            }
            case KvMessages.Ack ack -> {
                Pending write = pending.get(ack.index());
                if (write != null && ++write.holders >= majority) {
                    pending.remove(ack.index());
                    commit(env, ack.index(), write);
                }
            }
            default -> env.log("ignored " + message.getClass().getSimpleName() + " from " + from);
        }
    }

    private void commit(Env env, long index, Pending write) {
        data.put(write.key, write.value);
        applied = index;
        env.send(write.client, new KvMessages.PutDone(write.request, index));
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
    }

    /** The index of the last write this replica applied. */
    long applied() {
        return applied;
    }
}
