package dev.deja.view;

/**
 * The happens-before cone of one event: the events that causally precede it (its past: program order on each
 * node, across incarnations, and send before receive) and the events it can affect (its future). The origin
 * belongs to neither.
 *
 * <p>On every lane the past is a prefix and the future a suffix of the lane's events, so a cone is two
 * numbers per lane: the last ordinal in the past and the first ordinal in the future (an event's ordinal is
 * its index on its lane, equal to its seq). Immutable.
 */
public interface Cone {
    /** The event the cone is of. */
    int origin();

    /** Whether the event at {@code position} happened before the origin. */
    boolean inPast(int position);

    /** Whether the origin happened before the event at {@code position}. */
    boolean inFuture(int position);

    /** Whether the event at {@code position} is the origin or causally related to it. */
    default boolean contains(int position) {
        return position == origin() || inPast(position) || inFuture(position);
    }

    /** The ordinal of the last event of {@code lane} in the past, or -1 if none is. */
    int lastPastOrdinal(int lane);

    /** The ordinal of the first event of {@code lane} in the future, or {@link Integer#MAX_VALUE} if none is. */
    int firstFutureOrdinal(int lane);
}
