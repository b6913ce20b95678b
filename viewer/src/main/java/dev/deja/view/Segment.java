package dev.deja.view;

/**
 * One incarnation of a node: the stretch of its lane from the incarnation's first entry to its last.
 *
 * @param lane          the node's lane
 * @param incarnation   the incarnation number (1 for the first start)
 * @param firstPosition the position of its first entry in the merged order
 * @param lastPosition  the position of its last entry
 * @param crashed       whether it ended without a clean shutdown (the next incarnation recorded a crash, or
 *                      the recording of the last incarnation never completed)
 */
public record Segment(int lane, int incarnation, int firstPosition, int lastPosition, boolean crashed) {
    public Segment {
        if (firstPosition > lastPosition) {
            throw new IllegalArgumentException("segment starts at " + firstPosition + " after its end " + lastPosition);
        }
    }
}
