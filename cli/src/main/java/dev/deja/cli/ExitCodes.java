package dev.deja.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exit codes of every {@code deja} command, the same in each: what a script calling Deja can rely on.
 * A command returns {@link #OK} or {@link #FINDINGS} from {@code call()}; {@link #USAGE} and {@link #INTERNAL}
 * come from the handlers {@link CommandLines#configure} installs (throw {@link UsageException} or a picocli
 * {@code ParameterException} for a bad option or input; anything unexpected becomes {@link #INTERNAL}).
 */
public final class ExitCodes {
    /** Success, and nothing found. */
    public static final int OK = 0;
    /** The command ran and found something: violations, divergences. */
    public static final int FINDINGS = 1;
    /** A usage or input error: bad option or value, no such trace, unknown example, unreadable script. */
    public static final int USAGE = 2;
    /** An internal error (a defect of Deja); the stack trace is in a log file named on standard error. */
    public static final int INTERNAL = 3;

    private ExitCodes() {
    }

    /** The table shown under "Exit codes:" in every command's help. */
    public static Map<String, String> helpSection() {
        Map<String, String> codes = new LinkedHashMap<>();
        codes.put(" " + OK, "success, nothing found");
        codes.put(" " + FINDINGS, "findings (violations, divergences)");
        codes.put(" " + USAGE, "usage or input error (bad option, no such trace, unknown example, unreadable script)");
        codes.put(" " + INTERNAL, "internal error (the stack trace is in the log file named on standard error)");
        return codes;
    }
}
