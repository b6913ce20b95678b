package dev.deja.cli;

import picocli.CommandLine.Option;

/**
 * Options every {@code deja} command takes. {@link CommandLines#configure} adds this mixin to every subcommand that
 * does not declare it, so a new command gets it without doing anything; declare it as
 * {@code @Mixin CommonOptions common;} to read the values.
 */
public final class CommonOptions {
    /** The name under which the mixin is registered. */
    public static final String MIXIN_NAME = "common";

    @Option(names = "--verbose", description = "Say more: stack traces of errors on standard error, details of every step.")
    boolean verbose;

    public boolean verbose() {
        return verbose;
    }
}
