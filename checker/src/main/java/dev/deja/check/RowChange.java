package dev.deja.check;

import dev.deja.node.NodeId;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One change to one row of a declared table, found by diffing a node's rows after an event with its rows
 * before it.
 *
 * <p>Values are normalized so they can be stored, compared and handed to Python without host objects:
 * {@code null}, {@link Boolean}, {@link Long} (all integral types), {@link Double}, {@link String} (strings,
 * enums by name, node ids), {@link java.util.List} (immutable; from collections and arrays) and
 * {@link java.util.Map} (immutable, insertion-ordered). A reference to an object of a declared table is its
 * {@code oid} as a {@link Long}.
 *
 * @param table  the declared table's name
 * @param kind   what happened to the row
 * @param node   the node that owns the object
 * @param oid    the object's identity, stable for the whole run
 * @param values every declared column's value after the change (empty for a delete)
 */
public record RowChange(String table, Kind kind, NodeId node, long oid, Map<String, Object> values) {
    /** What happened to a row. */
    public enum Kind {
        INSERT("I"), UPDATE("U"), DELETE("D");

        private final String code;

        Kind(String code) {
            this.code = code;
        }

        /** The one-letter code that stands for this kind where changes are encoded (Python, stored steps). */
        public String code() {
            return code;
        }

        /** The kind whose {@link #code()} is {@code code}, if any. */
        public static Optional<Kind> ofCode(String code) {
            for (Kind kind : values()) {
                if (kind.code.equals(code)) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }
    }

    public RowChange {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(values, "values");
    }
}
