package dev.deja.cli;

/**
 * A subcommand of {@code deja} that a module above the command line contributes, found at run time with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.deja.cli.ContributedCommand}): a picocli
 * {@code @Command} class with a public no-argument constructor. The name comes from its {@code @Command}
 * annotation. This keeps the dependencies pointing one way: {@code deja bench} lives in the benchmark module,
 * which depends on the command line, not the other way round.
 */
public interface ContributedCommand {
}
