package dev.deja.bench.internal.kv;

/** The messages of the replicated key-value store. */
public final class KvMessages {
    private KvMessages() {
    }

    /** Client to leader: store {@code value} under {@code key}. */
    public record Put(long request, String key, String value) {
    }

    /** Client to leader: read {@code key}. */
    public record Get(long request, String key) {
    }

    /** Leader to follower: apply entry {@code index}. */
    public record Replicate(long index, String key, String value) {
    }

    /** Follower to leader: entry {@code index} is applied. */
    public record Ack(long index) {
    }

    /** Leader to client: the put of {@code request} is replicated to a majority, as entry {@code index}. */
    public record PutDone(long request, long index) {
    }

    /** Leader to client: the value of the key read by {@code request}, or null. */
    public record GetDone(long request, String value) {
    }
}
