package dev.deja.view;

import dev.deja.trace.Event;

/** The kind of a trace entry, as the viewer draws it. */
public enum EventType {
    START("start", true),
    RECEIVE("receive", true),
    SEND("send", false),
    TIMER("timer", true),
    CLOCK("clock", false),
    RANDOM("random", false),
    STORAGE_READ("storage-read", false),
    CRASH("crash", true);

    private static final EventType[] VALUES = values();

    private final String traceName;
    private final boolean dispatch;

    EventType(String traceName, boolean dispatch) {
        this.traceName = traceName;
        this.dispatch = dispatch;
    }

    /** The name {@code deja dump} uses for this kind ({@code storage-read}, ...). */
    public String traceName() {
        return traceName;
    }

    /** Whether an entry of this kind begins a handler call (or, for a crash, ends an incarnation). */
    public boolean isDispatch() {
        return dispatch;
    }

    /** The kind of a recorded event. */
    public static EventType of(Event event) {
        return switch (event) {
            case Event.Start s -> START;
            case Event.Receive r -> RECEIVE;
            case Event.Send s -> SEND;
            case Event.TimerFired t -> TIMER;
            case Event.ClockRead c -> CLOCK;
            case Event.RandomDraw r -> RANDOM;
            case Event.StorageRead s -> STORAGE_READ;
            case Event.Crash c -> CRASH;
        };
    }

    /** The kind with this {@link #ordinal()}. */
    public static EventType ofOrdinal(int ordinal) {
        return VALUES[ordinal];
    }
}
