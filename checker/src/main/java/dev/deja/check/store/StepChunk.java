package dev.deja.check.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.node.NodeId;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run of consecutive steps stored as one JSON text in {@code deja_steps}, so that re-checking from the history
 * reads a few large rows instead of a row per event and per change.
 *
 * <p>The text is an array of steps; a step is {@code [position, node, incarnation, seq, lamport, atMillis, type,
 * messageType, from, changes]} with {@code null} for an absent message type or sender, and a change is {@code
 * [table, kind, node, oid, values]} with kind as {@link RowChange.Kind#code()} and {@code null} values for a
 * delete. Values read back in the normalized forms of {@link RowChange} ({@link JsonValues}).
 */
final class StepChunk {
    // NaN and the infinities as bare tokens, so that they read back as the doubles they were, not as strings.
    private static final ObjectMapper JSON = JsonMapper.builder().disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    private StringWriter text;
    private JsonGenerator generator;
    private long firstPosition = -1;
    private long lastPosition = -1;

    /** Appends {@code step}, which comes after every step already in the chunk. */
    void add(StateStep step) throws IOException {
        if (generator == null) {
            text = new StringWriter(64 * 1024);
            generator = JSON.createGenerator(text);
            generator.writeStartArray();
            firstPosition = step.event().position();
        }
        CheckedEvent event = step.event();
        lastPosition = event.position();
        generator.writeStartArray();
        generator.writeNumber(event.position());
        generator.writeString(event.node().value());
        generator.writeNumber(event.incarnation());
        generator.writeNumber(event.seq());
        generator.writeNumber(event.lamport());
        generator.writeNumber(event.atMillis());
        generator.writeString(event.type());
        generator.writeString(event.messageType().orElse(null));
        generator.writeString(event.from().map(NodeId::value).orElse(null));
        generator.writeStartArray();
        for (RowChange change : step.changes()) {
            generator.writeStartArray();
            generator.writeString(change.table());
            generator.writeString(change.kind().code());
            generator.writeString(change.node().value());
            generator.writeNumber(change.oid());
            if (change.kind() == RowChange.Kind.DELETE) {
                generator.writeNull();
            } else {
                writeValue(change.values());
            }
            generator.writeEndArray();
        }
        generator.writeEndArray();
        generator.writeEndArray();
    }

    /**
     * Writes a normalized value as Jackson's data binding would, without its per-value serializer lookups (a third
     * of the history writer's time); maps keyed by anything but strings are left to the data binding.
     */
    private void writeValue(Object value) throws IOException {
        switch (value) {
            case null -> generator.writeNull();
            case String string -> generator.writeString(string);
            case Long number -> generator.writeNumber(number);
            case Double number -> generator.writeNumber(number);
            case Boolean bool -> generator.writeBoolean(bool);
            case List<?> list -> {
                generator.writeStartArray();
                for (Object element : list) {
                    writeValue(element);
                }
                generator.writeEndArray();
            }
            case Map<?, ?> map when stringKeys(map) -> {
                generator.writeStartObject();
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    generator.writeFieldName((String) entry.getKey());
                    writeValue(entry.getValue());
                }
                generator.writeEndObject();
            }
            default -> generator.writeObject(value);
        }
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

    /** The chunk's JSON text; {@link #clear} starts the next chunk. */
    String finish() throws IOException {
        generator.writeEndArray();
        generator.close();
        return text.toString();
    }

    void clear() {
        text = null;
        generator = null;
        firstPosition = -1;
        lastPosition = -1;
    }

    /** The steps of a stored chunk, in order. */
    static List<StateStep> read(String json) {
        JsonNode steps;
        try {
            steps = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new CheckDatabaseException("a stored chunk of steps is not valid JSON: " + e.getOriginalMessage(), e);
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
