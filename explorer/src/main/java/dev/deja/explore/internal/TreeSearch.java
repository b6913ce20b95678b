package dev.deja.explore.internal;

/**
 * A strategy whose paths are the branches of one tree of choices ({@code dfs}, {@code dpor}): each path starts from
 * the prefix the previous one backtracked to. Confined to one thread.
 */
interface TreeSearch {
    /** The source of the next path, or {@code null} when the tree is exhausted. */
    PathSource nextPath();

    /** Told that the path from the last {@link #nextPath} ended (with {@code steps} steps). */
    void pathEnded(long steps);

    /** Whether every branch was explored (no bound cut any path short). */
    boolean exhausted();

    /** A line for the report: depth bounds, iterations, pruned paths. */
    String summary();

    /** Thrown by a source to end a path that partial-order reduction shows to be redundant (sleep-set blocked). */
    final class Redundant extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Redundant() {
            super("redundant path", null, false, false);
        }
    }
}
