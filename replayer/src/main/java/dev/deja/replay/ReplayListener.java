package dev.deja.replay;

/**
 * Observes a replay, entry by entry, in the merged happens-before order.
 *
 * <p>Called on the replay thread after each merged entry has been processed, so for an entry that started a
 * handler the nodes already show the handler's effect. Replaying the same trace with the same options calls
 * a listener with the same sequence of entries and positions every time. A listener must not keep the
 * {@link ReplayState} beyond the call.
 */
@FunctionalInterface
public interface ReplayListener {
    /**
     * @param event    the entry just replayed
     * @param position its 0-based index in the merged order
     * @param state    the replayed nodes now
     */
    void afterEvent(ReplayedEvent event, long position, ReplayState state);
}
