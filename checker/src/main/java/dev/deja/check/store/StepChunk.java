package dev.deja.check.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run of consecutive steps stored as one CBOR value in {@code deja_steps}, so that re-checking from the history
 * reads a few large rows instead of a row per event and per change. CBOR rather than JSON text: a third smaller, and
 * numbers are written and read without formatting or parsing them.
 *
 * <p>The value is an array of steps; a step is {@code [position, node, incarnation, seq, lamport, atMillis, type,
 * messageType, from, changes]} with {@code null} for an absent message type or sender, and a change is {@code
 * [table, kind, node, oid, values]} with kind as {@link RowChange.Kind#code()} and {@code null} values for a
 * delete. Values read back in the normalized forms of {@link RowChange} ({@link JsonValues}).
 */
final class StepChunk {
    private static final ObjectMapper CBOR = CBORMapper.builder().build();

    private ByteArrayOutputStream bytes;
    private JsonGenerator generator;
    private long firstPosition = -1;
    private long lastPosition = -1;

    /** Appends {@code step}, which comes after every step already in the chunk. */
    void add(StateStep step) throws IOException {
        if (generator == null) {
            bytes = new ByteArrayOutputStream(64 * 1024);
            generator = CBOR.createGenerator(bytes);
            generator.writeStartArray();
            firstPosition = step.event().position();
        }
        CheckedEvent event = step.event();
        lastPosition = event.position();
        generator.writeStartArray(null, 10);
        generator.writeNumber(event.position());
        generator.writeString(event.node().value());
        generator.writeNumber(event.incarnation());
        generator.writeNumber(event.seq());
        generator.writeNumber(event.lamport());
        generator.writeNumber(event.atMillis());
        generator.writeString(event.type());
        generator.writeString(event.messageType().orElse(null));
        generator.writeString(event.from().map(NodeId::value).orElse(null));
        generator.writeStartArray(null, step.changes().size());
        for (RowChange change : step.changes()) {
            generator.writeStartArray(null, 5);
            generator.writeString(change.table());
            generator.writeString(change.kind().code());
            generator.writeString(change.node().value());
            generator.writeNumber(change.oid());
            if (change.kind() == RowChange.Kind.DELETE) {
                generator.writeNull();
            } else {
                // Keyed by column names: the string-key check of nested maps is not needed here.
                writeStringKeyed(change.values());
            }
            generator.writeEndArray();
        }
        generator.writeEndArray();
        generator.writeEndArray();
    }

    /**
     * Writes a normalized value as Jackson's data binding would, without its per-value serializer lookups (a third
     * of the history writer's time); maps keyed by anything but strings are left to the data binding. Arrays and
     * maps have their lengths up front, which CBOR stores in their first byte.
     */
    private void writeValue(Object value) throws IOException {
        switch (value) {
            case null -> generator.writeNull();
            case String string -> generator.writeString(string);
            case Long number -> generator.writeNumber(number);
            case Double number -> generator.writeNumber(number);
            case Boolean bool -> generator.writeBoolean(bool);
            case List<?> list -> {
                generator.writeStartArray(list, list.size());
                for (Object element : list) {
                    writeValue(element);
                }
                generator.writeEndArray();
            }
            case Map<?, ?> map when stringKeys(map) -> writeStringKeyed(map);
            default -> generator.writeObject(value);
        }
    }

    /** Writes {@code map}, whose keys are all strings, as an object of its length. */
    private void writeStringKeyed(Map<?, ?> map) throws IOException {
        generator.writeStartObject(map, map.size());
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            generator.writeFieldName((String) entry.getKey());
            writeValue(entry.getValue());
        }
        generator.writeEndObject();
    }

    private static boolean stringKeys(Map<?, ?> map) {
        for (Object key : map.keySet()) {
            if (!(key instanceof String)) {
                return false;
            }
        }
        return true;
    }

    boolean isEmpty() {
        return generator == null;
    }

    long firstPosition() {
        return firstPosition;
    }

    long lastPosition() {
        return lastPosition;
    }

    /** The chunk's bytes; {@link #clear} starts the next chunk. */
    byte[] finish() throws IOException {
        generator.writeEndArray();
        generator.close();
        return bytes.toByteArray();
    }

    void clear() {
        bytes = null;
        generator = null;
        firstPosition = -1;
        lastPosition = -1;
    }

    /** The steps of a stored chunk, in order. */
    static List<StateStep> read(byte[] stored) {
        JsonNode steps;
        try {
            steps = CBOR.readTree(stored);
        } catch (IOException e) {
            throw new CheckDatabaseException("a stored chunk of steps is not valid CBOR: " + e.getMessage(), e);
        }
        List<StateStep> out = new ArrayList<>(steps.size());
        for (JsonNode step : steps) {
            CheckedEvent event = new CheckedEvent(step.get(0).longValue(), new NodeId(step.get(1).textValue()),
                    step.get(2).intValue(), step.get(3).longValue(), step.get(4).longValue(), step.get(5).longValue(),
                    step.get(6).textValue(), Optional.ofNullable(step.get(7).textValue()),
                    Optional.ofNullable(step.get(8).textValue()).map(NodeId::new));
            JsonNode changes = step.get(9);
            List<RowChange> stepChanges = new ArrayList<>(changes.size());
            for (JsonNode change : changes) {
                RowChange.Kind kind = RowChange.Kind.ofCode(change.get(1).textValue()).orElseThrow(() ->
                        new CheckDatabaseException("a stored change of table " + change.get(0).textValue()
                                + " at event " + event.position() + " has the unknown kind " + change.get(1)));
                @SuppressWarnings("unchecked")
                Map<String, Object> values = kind == RowChange.Kind.DELETE ? Map.of()
                        : (Map<String, Object>) JsonValues.convert(change.get(4));
                stepChanges.add(new RowChange(change.get(0).textValue(), kind, new NodeId(change.get(2).textValue()),
                        change.get(3).longValue(), values));
            }
            out.add(new StateStep(event, stepChanges));
        }
        return out;
    }
}
