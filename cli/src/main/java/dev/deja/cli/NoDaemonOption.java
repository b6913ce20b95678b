package dev.deja.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --no-daemon} option of the commands the warm engine runs. The launcher acts on it (it runs the command
 * in a new JVM); here it is only accepted and documented.
 */
public final class NoDaemonOption {
    @Option(names = "--no-daemon", description = "Run in a new JVM instead of the warm engine (see 'deja daemon').")
    boolean noDaemon;
}
