package dev.deja.check;

import java.util.List;
import java.util.Objects;

/**
 * A table declared by a script: which objects become rows and which of their members become columns. Two
 * scripts with equal schemas (in the same order) extract the same rows, so stored history can be reused.
 *
 * @param name      the table's name, a valid identifier
 * @param className objects of this class or a subclass become rows
 * @param columns   the declared columns, in declaration order (the built-in {@code node} and {@code oid} are
 *                  not listed)
 */
public record TableSchema(String name, String className, List<String> columns) {
    public TableSchema {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(className, "className");
        columns = List.copyOf(columns);
    }
}
