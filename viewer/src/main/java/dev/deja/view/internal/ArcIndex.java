package dev.deja.view.internal;

import dev.deja.view.TraceModel;
import java.util.function.IntConsumer;

/**
 * Finds the arcs that cross a window of positions without scanning them all: positions are cut into blocks
 * and each block lists the arcs overlapping it (a long arc is listed in every block it spans). Built once per
 * model; immutable and thread-safe afterwards.
 */
final class ArcIndex {
    private static final int BLOCK_BITS = 10;

    private final TraceModel model;
    private final int[] blockStart;
    private final int[] arcs;

    private static final java.util.Map<TraceModel, ArcIndex> CACHE =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** The index of {@code model}, built on first use and kept as long as the model lives. */
    static ArcIndex of(TraceModel model) {
        return CACHE.computeIfAbsent(model, ArcIndex::new);
    }

    ArcIndex(TraceModel model) {
        this.model = model;
        int blocks = (model.size() >> BLOCK_BITS) + 1;
        int[] counts = new int[blocks + 1];
        for (int arc = 0; arc < model.arcCount(); arc++) {
            for (int block = firstBlock(arc); block <= lastBlock(arc); block++) {
                counts[block + 1]++;
            }
        }
        for (int block = 0; block < blocks; block++) {
            counts[block + 1] += counts[block];
        }
        blockStart = counts.clone();
        arcs = new int[counts[blocks]];
        int[] fill = counts;
        for (int arc = 0; arc < model.arcCount(); arc++) {
            for (int block = firstBlock(arc); block <= lastBlock(arc); block++) {
                arcs[fill[block]++] = arc;
            }
        }
    }

    /** The first position an arc touches. */
    int first(int arc) {
        int send = model.arcSend(arc);
        return send >= 0 ? send : model.arcReceive(arc);
    }

    /** The last position an arc touches (a send never received ends at its send). */
    int last(int arc) {
        int receive = model.arcReceive(arc);
        return receive >= 0 ? receive : model.arcSend(arc);
    }

    private int firstBlock(int arc) {
        return first(arc) >> BLOCK_BITS;
    }

    private int lastBlock(int arc) {
        return last(arc) >> BLOCK_BITS;
    }

    /** Calls {@code action} once for every arc that touches a position in {@code from..to}. */
    void forEachCrossing(int from, int to, IntConsumer action) {
        if (model.size() == 0 || to < from) {
            return;
        }
        int fromBlock = from >> BLOCK_BITS;
        int toBlock = to >> BLOCK_BITS;
        for (int block = fromBlock; block <= toBlock; block++) {
            for (int i = blockStart[block]; i < blockStart[block + 1]; i++) {
                int arc = arcs[i];
                // Each arc once: from the first block where both it and the window are.
                if (Math.max(firstBlock(arc), fromBlock) != block) {
                    continue;
                }
                if (first(arc) <= to && last(arc) >= from) {
                    action.accept(arc);
                }
            }
        }
    }
}
