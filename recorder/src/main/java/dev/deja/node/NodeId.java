package dev.deja.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.regex.Pattern;

/**
 * The name of a node in a cluster, such as {@code n1}.
 *
 * <p>Ids are short, printable and safe as a directory name: letters, digits, {@code -}, {@code _} and
 * {@code .}, at most 64 characters, not starting with a dot. They serialize as a plain string.
 */
public record NodeId(String value) implements Comparable<NodeId> {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}");

    public NodeId {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException("invalid node id '" + value
                    + "': expected 1-64 letters, digits, '-', '_' or '.', not starting with '.'");
        }
    }

    @JsonCreator
    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @JsonValue
    @Override
    public String value() {
        return value;
    }

    @Override
    public int compareTo(NodeId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
