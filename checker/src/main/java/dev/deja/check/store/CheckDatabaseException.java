package dev.deja.check.store;

/** The check database of a trace cannot be used; the message names the file and what to do. */
public final class CheckDatabaseException extends RuntimeException {
    public CheckDatabaseException(String message) {
        super(message);
    }

    public CheckDatabaseException(String message, Throwable cause) {
        super(message, cause);
    }
}
