package dev.deja.replay;

import dev.deja.trace.TraceEvent;
import java.util.Objects;

/**
 * One entry of the merged trace, as the replayer passed it.
 *
 * @param entry          the recorded entry
 * @param startedHandler whether a handler call ({@code onStart}, {@code onMessage}, {@code onTimer}) began at
 *                       this entry; the handler's observations and sends appear as later entries, already
 *                       executed, since a handler runs to completion at once
 */
public record ReplayedEvent(TraceEvent entry, boolean startedHandler) {
    public ReplayedEvent {
        Objects.requireNonNull(entry, "entry");
    }
}
