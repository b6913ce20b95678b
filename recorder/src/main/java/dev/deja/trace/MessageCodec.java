package dev.deja.trace;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ConcurrentHashMap;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Serializes messages and timer tags: CBOR on the wire and in the trace, JSON for humans.
 *
 * <p>A value is identified by its class name, resolved with the class loader given at construction, so a
 * replay of a user's system resolves the user's classes. Thread-safe.
 */
public final class MessageCodec {
    private static final XXHash64 HASH = XXHashFactory.fastestJavaInstance().hash64();
    private static final long DIGEST_SEED = 0x44454A41L; // "DEJA"

    private final ObjectMapper cbor;
    private final ObjectMapper json;
    private final ClassLoader classLoader;
    // Per message class: resolving the name and Jackson's root deserializer once, not at every message.
    private final ConcurrentHashMap<String, ObjectReader> readers = new ConcurrentHashMap<>();

    public MessageCodec(ClassLoader classLoader) {
        this.classLoader = classLoader;
        this.cbor = CBORMapper.builder(new CBORFactory())
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        this.json = JsonMapper.builder()
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
    }

    /** A codec resolving classes with this library's own class loader. */
    public static MessageCodec defaultCodec() {
        return Holder.DEFAULT;
    }

    private static final class Holder {
        static final MessageCodec DEFAULT = new MessageCodec(MessageCodec.class.getClassLoader());
    }

    /** Encodes a message or tag; fails with a message naming the class if Jackson cannot serialize it. */
    public Payload encode(Object value) {
        if (value == null) {
            throw new IllegalArgumentException("a message or timer tag must not be null");
        }
        try {
            return new Payload(value.getClass().getName(), cbor.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialize " + value.getClass().getName()
                    + " with Jackson (messages and tags must be records or simple values): " + e.getMessage(), e);
        }
    }

    /** Decodes a payload back into an instance of its class. */
    public Object decode(Payload payload) {
        ObjectReader reader = readers.get(payload.type());
        if (reader == null) {
            Class<?> type;
            try {
                type = Class.forName(payload.type(), false, classLoader);
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("message class " + payload.type()
                        + " is not on the classpath (replaying a user's system needs its classes)", e);
            }
            reader = cbor.readerFor(type);
            readers.putIfAbsent(payload.type(), reader);
        }
        try {
            return reader.readValue(payload.bytes());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot decode a " + payload.type() + ": " + e.getMessage(), e);
        }
    }

    /** The payload as a JSON tree, readable without the payload's classes. */
    public JsonNode toJsonTree(Payload payload) {
        try {
            return cbor.readTree(payload.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read a " + payload.type() + " payload as CBOR", e);
        }
    }

    /** The payload rendered as compact JSON. */
    public String toJson(Payload payload) {
        try {
            return json.writeValueAsString(toJsonTree(payload));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The 64-bit content digest recorded for every send and compared on replay (XXH64 of the CBOR bytes). */
    public static long digest(Payload payload) {
        byte[] bytes = payload.bytes();
        return HASH.hash(bytes, 0, bytes.length, DIGEST_SEED ^ payload.type().hashCode());
    }
}
