package dev.deja.trace.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The JSON mapper for manifests and cluster files, and atomic file replacement. */
public final class Json {
    /** Pretty-printing, tolerant of fields added by newer builds. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Json() {
    }

    /** Writes {@code value} as JSON to {@code file} atomically: readers see the old or the new file, never a mix. */
    public static void writeAtomically(Path file, Object value) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        MAPPER.writeValue(temporary.toFile(), value);
        try {
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
