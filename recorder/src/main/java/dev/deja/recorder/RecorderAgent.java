package dev.deja.recorder;

/**
 * The {@code -javaagent:deja-recorder.jar=TRACE_DIR} entry point: switches recording on for an unmodified
 * node program by setting {@link Recording#PROPERTY} before its {@code main} runs. The runtime reads that
 * property when a node starts; nothing is instrumented.
 */
public final class RecorderAgent {
    private RecorderAgent() {
    }

    /** Called by the JVM before {@code main}; {@code arguments} is the trace directory. */
    public static void premain(String arguments) {
        if (arguments == null || arguments.isBlank()) {
            throw new IllegalArgumentException("usage: -javaagent:deja-recorder.jar=TRACE_DIRECTORY");
        }
        System.setProperty(Recording.PROPERTY, arguments);
        QuietLogging.apply();
    }
}
