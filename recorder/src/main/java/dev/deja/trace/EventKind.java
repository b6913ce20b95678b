package dev.deja.trace;

/**
 * The kinds of recorded {@link Event}, each with everything the tools agree on: its code in the log format, its
 * stable name (as {@code deja dump --json}, the checker's {@code event.type} and the viewer show it) and whether an
 * event of the kind begins a handler call. The codes are part of the trace format: never renumber them.
 */
public enum EventKind {
    START(1, "start", true),
    RECEIVE(2, "receive", true),
    SEND(3, "send", false),
    TIMER(4, "timer", true),
    CLOCK(5, "clock", false),
    RANDOM(6, "random", false),
    STORAGE_READ(7, "storage-read", false),
    /** Ends an incarnation that was killed; it begins no handler call. */
    CRASH(8, "crash", false);

    private static final EventKind[] BY_CODE = new EventKind[9];

    static {
        for (EventKind kind : values()) {
            BY_CODE[kind.code] = kind;
        }
    }

    private final byte code;
    private final String traceName;
    private final boolean dispatch;

    EventKind(int code, String traceName, boolean dispatch) {
        this.code = (byte) code;
        this.traceName = traceName;
        this.dispatch = dispatch;
    }

    /** The byte that stands for this kind in a log entry. */
    public byte code() {
        return code;
    }

    /** The stable name: {@code start}, {@code receive}, {@code send}, ..., {@code storage-read}, {@code crash}. */
    public String traceName() {
        return traceName;
    }

    /** Whether an event of this kind begins a handler call (start, receive, timer). */
    public boolean isDispatch() {
        return dispatch;
    }

    /** Whether {@code code} stands for a kind. */
    public static boolean isCode(int code) {
        return code >= 0 && code < BY_CODE.length && BY_CODE[code] != null;
    }

    /** The kind {@code code} stands for; see {@link #isCode}. */
    public static EventKind ofCode(int code) {
        if (!isCode(code)) {
            throw new IllegalArgumentException("unknown event type code " + code);
        }
        return BY_CODE[code];
    }
}
