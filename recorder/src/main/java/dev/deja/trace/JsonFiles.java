package dev.deja.trace;

import dev.deja.trace.internal.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON files a run keeps beside its logs (manifests, {@code trace.json}, cluster files): read tolerantly of
 * fields added by newer builds, written pretty-printed and atomically.
 */
public final class JsonFiles {
    private JsonFiles() {
    }

    /** Reads {@code file} as a {@code type}; fields this build does not know are ignored. */
    public static <T> T read(Path file, Class<T> type) throws IOException {
        return Json.MAPPER.readValue(Files.readAllBytes(file), type);
    }

    /** Writes {@code value} to {@code file} so that readers see the old or the new file, never a mix. */
    public static void writeAtomically(Path file, Object value) throws IOException {
        Json.writeAtomically(file, value);
    }
}
