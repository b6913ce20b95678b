package dev.deja.cli;

import java.io.Serial;

/**
 * A usage or input error found while a command runs (no trace at the path given, unknown example, a script that
 * cannot be read): the command ends with {@link ExitCodes#USAGE} and the message as one line, no stack trace.
 * The message names the file, node, event or option and says what was expected.
 */
public final class UsageException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }
}
