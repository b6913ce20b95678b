package dev.deja.check.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.deja.check.DerivedValues;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A run of one derived value's stored changes as one CBOR value in {@code deja_derived_changes}, so that a re-check
 * that serves a value changing at every event (a clock) reads a few rows instead of one per event. The value is an
 * array of changes, each {@code [position, value, reads]}: the value's {@code repr} text or {@code null} when it did
 * not change, and what it read as an array of names or {@code null} when that did not change.
 */
final class DerivedChunk {
    /** Changes per stored chunk. */
    static final int SIZE = 4096;

    private DerivedChunk() {
    }

    /** The stored form of {@code changes}, in their order. */
    static byte[] write(List<DerivedValues.Change> changes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 * changes.size() + 16);
        try (JsonGenerator generator = StepChunk.CBOR.createGenerator(bytes)) {
            generator.writeStartArray(null, changes.size());
            for (DerivedValues.Change change : changes) {
                generator.writeStartArray(null, 3);
                generator.writeNumber(change.position());
                generator.writeString(change.value());
                if (change.reads() == null) {
                    generator.writeNull();
                } else {
                    generator.writeStartArray(null, change.reads().size());
                    for (String read : change.reads()) {
                        generator.writeString(read);
                    }
                    generator.writeEndArray();
                }
                generator.writeEndArray();
            }
            generator.writeEndArray();
        }
        return bytes.toByteArray();
    }

    /** Appends the changes of a stored chunk to {@code out}, in order; read with the step chunks' own readers. */
    static void read(byte[] stored, List<DerivedValues.Change> out) throws IOException {
        try (JsonParser parser = StepChunk.CBOR.createParser(stored)) {
            try {
                StepChunk.expect(parser, JsonToken.START_ARRAY);
                for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
                    StepChunk.require(token == JsonToken.START_ARRAY, parser);
                    long position = StepChunk.longValue(parser);
                    String text = StepChunk.text(parser);
                    JsonToken reads = parser.nextToken();
                    List<String> names = null;
                    if (reads == JsonToken.START_ARRAY) {
                        names = new ArrayList<>();
                        for (JsonToken name = parser.nextToken(); name != JsonToken.END_ARRAY; name = parser.nextToken()) {
                            StepChunk.require(name == JsonToken.VALUE_STRING, parser);
                            names.add(parser.getText());
                        }
                    } else {
                        StepChunk.require(reads == JsonToken.VALUE_NULL, parser);
                    }
                    StepChunk.expect(parser, JsonToken.END_ARRAY);
                    out.add(new DerivedValues.Change(position, text, names));
                }
            } catch (CheckDatabaseException damaged) {
                throw new CheckDatabaseException("a stored chunk of derived values is damaged near byte "
                        + parser.currentLocation().getByteOffset() + "; run 'deja check --fresh' to rebuild the history",
                        damaged);
            }
        }
    }
}
