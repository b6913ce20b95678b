package dev.deja.trace;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A serialized message or timer tag: the Java class name and its Jackson CBOR encoding.
 *
 * @param type  the fully qualified class name of the value
 * @param bytes the value in CBOR; never modified after construction
 */
public record Payload(String type, byte[] bytes) {
    public Payload {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(bytes, "bytes");
    }

    /** The class name without its package, as shown to humans ({@code Collect} for {@code ...paxos.Collect}). */
    public String simpleType() {
        int dot = Math.max(type.lastIndexOf('.'), type.lastIndexOf('$'));
        return type.substring(dot + 1);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Payload that && type.equals(that.type) && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "Payload[" + type + ", " + HexFormat.of().formatHex(bytes) + "]";
    }
}
