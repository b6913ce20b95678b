package dev.deja.recorder;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether this process records, decided from outside the node's code: the system property
 * {@value #PROPERTY} names the trace directory ({@code -Ddeja.record=/var/traces/run1}), or the recorder jar
 * is attached as an agent ({@code -javaagent:deja-recorder.jar=/var/traces/run1}), which sets that property.
 */
public final class Recording {
    /** The system property naming the trace directory. */
    public static final String PROPERTY = "deja.record";

    private Recording() {
    }

    /** The trace directory to record into, or empty when recording is off. */
    public static Optional<Path> traceDirectory() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(Path.of(value).toAbsolutePath());
    }
}
