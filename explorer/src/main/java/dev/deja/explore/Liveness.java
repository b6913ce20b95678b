package dev.deja.explore;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an exploration learned about one {@code @eventually} predicate: how soon paths reached a live state for
 * good (MaceMC's figure 2, so that dmax can be chosen), how many did not at all (suspected liveness violations),
 * and, when a liveness search ran, the critical transition of the shortest suspected path.
 *
 * <p>A path counts from the step after which the predicate held to the path's end: 0 when it never turned false, the
 * step its last false span closed otherwise; a path on which it was still false at the end never counts. Paths cut
 * short by a safety violation are left out.
 *
 * @param predicate   the predicate
 * @param paths       paths judged (not ended by a safety violation)
 * @param byDepth     for increasing depths, how many of them were live for good by that depth
 * @param suspected   paths that ended with the predicate false (suspected violations)
 * @param nonLiveFrom on the shortest suspected path (the finding's), the first step from which the predicate was
 *                    false to the end, as a prefix length (the state after that many steps is not live, the one
 *                    before it was); -1 without a suspected path
 * @param critical    the critical transition of the shortest suspected path, once the liveness search ran
 */
public record Liveness(String predicate, long paths, List<DepthShare> byDepth, long suspected,
                       long nonLiveFrom, Optional<CriticalTransition> critical) {
    /**
     * How many paths were live for good by a depth.
     *
     * @param depth  the depth, in steps
     * @param paths  paths live from that depth (or earlier) to their end
     */
    public record DepthShare(long depth, long paths) {
    }

    public Liveness {
        Objects.requireNonNull(predicate, "predicate");
        byDepth = List.copyOf(byDepth);
        Objects.requireNonNull(critical, "critical");
    }

    /** The share (0..1) of judged paths live for good by {@code share.depth()}. */
    public double share(DepthShare share) {
        return paths == 0 ? 0 : (double) share.paths() / paths;
    }

    public Liveness withCritical(CriticalTransition value) {
        return new Liveness(predicate, paths, byDepth, suspected, nonLiveFrom, Optional.of(value));
    }

    /** The depths at which shares are given, up to {@code maxDepth}: 1, 3, 10, 30, 100, ... and {@code maxDepth}. */
    public static long[] depths(long maxDepth) {
        List<Long> out = new java.util.ArrayList<>();
        for (long decade = 1; decade < maxDepth; decade *= 10) {
            out.add(decade);
            if (3 * decade < maxDepth) {
                out.add(3 * decade);
            }
        }
        out.add(maxDepth);
        return out.stream().mapToLong(Long::longValue).toArray();
    }
}
