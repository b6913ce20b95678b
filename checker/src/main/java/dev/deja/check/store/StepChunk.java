package dev.deja.check.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateStep;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * A run of consecutive steps stored as one CBOR value in {@code deja_steps}, so that re-checking from the history
 * reads a few large rows instead of a row per event and per change. CBOR rather than JSON text: a third smaller, and
 * numbers are written and read without formatting or parsing them.
 *
 * <p>The value is an array of steps; a step is {@code [position, node, incarnation, seq, lamport, atMillis, type,
 * messageType, from, changes]} with {@code null} for an absent message type or sender, and a change is {@code
 * [table, kind, node, oid, values]} with kind as {@link RowChange.Kind#code()} and {@code null} values for a
 * delete. Values read back in the normalized forms of {@link RowChange}: integral numbers as {@link Long}, others as
 * {@link Double}, lists and insertion-ordered maps unmodifiable.
 */
final class StepChunk {
    static final ObjectMapper CBOR = CBORMapper.builder().build();

    private ByteArrayOutputStream bytes;
    private JsonGenerator generator;
    private long firstPosition = -1;
    private long lastPosition = -1;
    // The tables the chunk's steps change, stored beside it so that a re-check can pass over chunks that change none
    // of the tables it reads.
    private final java.util.Set<String> tables = new java.util.TreeSet<>();

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
            tables.add(change.table());
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

    /** The names of the tables its steps change, in order. */
    List<String> tables() {
        return List.copyOf(tables);
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
        tables.clear();
    }

    /** The steps of a stored chunk, in order. */
    static List<StateStep> read(byte[] stored) {
        List<StateStep> out = new ArrayList<>();
        read(stored, position -> true, table -> true, out::add);
        return out;
    }

    /**
     * Hands {@code consumer} the steps of a stored chunk whose position {@code positions} accepts, in order, each with
     * only its changes of the tables {@code tables} accepts. Read as a stream: a step or change left out is skipped
     * without decoding its values (a re-check that needs a few hundred steps of a long history, or none of their
     * changes, decodes a small part of each chunk).
     */
    static void read(byte[] stored, LongPredicate positions, Predicate<String> tables, Consumer<StateStep> consumer) {
        read(stored, positions, Long.MAX_VALUE, tables, consumer);
    }

    /**
     * Like {@link #read(byte[], LongPredicate, Predicate, Consumer)}, stopping after the step at or past
     * {@code lastPosition}: a re-check that wants a few steps of a chunk does not parse the rest of it.
     */
    static void read(byte[] stored, LongPredicate positions, long lastPosition, Predicate<String> tables,
                     Consumer<StateStep> consumer) {
        try (JsonParser parser = CBOR.createParser(stored)) {
            expect(parser, JsonToken.START_ARRAY);
            for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
                require(token == JsonToken.START_ARRAY, parser);
                long position = longValue(parser);
                if (!positions.test(position)) {
                    if (position >= lastPosition) {
                        return;
                    }
                    skipRest(parser);
                    continue;
                }
                CheckedEvent event = new CheckedEvent(position, new NodeId(text(parser)), (int) longValue(parser),
                        longValue(parser), longValue(parser), longValue(parser), text(parser),
                        Optional.ofNullable(text(parser)), Optional.ofNullable(text(parser)).map(NodeId::new));
                expect(parser, JsonToken.START_ARRAY);
                List<RowChange> changes = new ArrayList<>();
                for (JsonToken change = parser.nextToken(); change != JsonToken.END_ARRAY; change = parser.nextToken()) {
                    require(change == JsonToken.START_ARRAY, parser);
                    String table = text(parser);
                    if (table == null || !tables.test(table)) {
                        skipRest(parser);
                        continue;
                    }
                    String code = text(parser);
                    RowChange.Kind kind = RowChange.Kind.ofCode(code).orElseThrow(() -> new CheckDatabaseException(
                            "a stored change of table " + table + " at event " + position + " has the unknown kind " + code));
                    NodeId node = new NodeId(text(parser));
                    long oid = longValue(parser);
                    parser.nextToken();
                    @SuppressWarnings("unchecked")
                    Map<String, Object> values = kind == RowChange.Kind.DELETE ? skipValue(parser)
                            : (Map<String, Object>) value(parser);
                    expect(parser, JsonToken.END_ARRAY);
                    changes.add(new RowChange(table, kind, node, oid, values));
                }
                expect(parser, JsonToken.END_ARRAY);
                consumer.accept(new StateStep(event, changes));
                if (position >= lastPosition) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof CheckDatabaseException known) {
                throw known;
            }
            throw new CheckDatabaseException("a stored chunk of steps is not valid: " + e.getMessage(), e);
        }
    }

    /** Skips the rest of the array whose elements the parser is in. */
    private static void skipRest(JsonParser parser) throws IOException {
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            require(token != null, parser);
            if (token.isStructStart()) {
                parser.skipChildren();
            }
        }
    }

    private static Map<String, Object> skipValue(JsonParser parser) throws IOException {
        parser.skipChildren();
        return Map.of();
    }

    static void expect(JsonParser parser, JsonToken expected) throws IOException {
        require(parser.nextToken() == expected, parser);
    }

    static void require(boolean holds, JsonParser parser) {
        if (!holds) {
            throw new CheckDatabaseException("a stored chunk of steps is not valid: unexpected " + parser.currentToken()
                    + " at byte " + parser.currentLocation().getByteOffset());
        }
    }

    static long longValue(JsonParser parser) throws IOException {
        JsonToken token = parser.nextToken();
        require(token == JsonToken.VALUE_NUMBER_INT, parser);
        return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? parser.getBigIntegerValue().longValue()
                : parser.getLongValue();
    }

    /** The next value, a string or null. */
    static String text(JsonParser parser) throws IOException {
        JsonToken token = parser.nextToken();
        if (token == JsonToken.VALUE_NULL) {
            return null;
        }
        require(token == JsonToken.VALUE_STRING, parser);
        return parser.getText();
    }

    /**
     * The value at the parser's current token in the normalized forms of {@link RowChange}: integral numbers as Long
     * (one too large for a long keeps its low 64 bits, as a parsed tree gives it), others as Double, unmodifiable lists
     * and insertion-ordered maps.
     */
    private static Object value(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        require(token != null, parser);
        switch (token) {
            case VALUE_NULL:
                return null;
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? parser.getBigIntegerValue().longValue() : parser.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return parser.getDoubleValue();
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(parser));
                }
                return Collections.unmodifiableList(list);
            }
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (String name = parser.nextFieldName(); name != null; name = parser.nextFieldName()) {
                    parser.nextToken();
                    map.put(name, value(parser));
                }
                require(parser.currentToken() == JsonToken.END_OBJECT, parser);
                return Collections.unmodifiableMap(map);
            }
            default:
                // Nothing else is ever written (values are normalized); a tree would read it as an empty map.
                if (token.isStructStart()) {
                    parser.skipChildren();
                }
                return Collections.unmodifiableMap(new LinkedHashMap<>());
        }
    }
}
