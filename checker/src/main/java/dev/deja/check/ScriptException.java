package dev.deja.check;

/**
 * A predicate script that cannot be used: a syntax error, an error while it ran its declarations, a bad
 * declaration, or a table whose class or column does not exist. The message is one clean paragraph starting
 * with {@code file:line[:column]} when a line is known, followed by the Python error.
 */
public final class ScriptException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ScriptException(String message) {
        super(message);
    }
}
