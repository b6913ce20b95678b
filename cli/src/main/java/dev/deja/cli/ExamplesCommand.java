package dev.deja.cli;

import dev.deja.examples.Example;
import dev.deja.examples.Examples;
import picocli.CommandLine.Command;

/** Lists the built-in examples and their bugs. */
@Command(name = "examples", mixinStandardHelpOptions = true,
        description = "List the built-in example protocols, the bugs each can switch on and the node arguments it takes.")
public final class ExamplesCommand implements Runnable {
    @Override
    public void run() {
        for (Example example : Examples.all()) {
            System.out.printf("%-12s %s (default %d nodes)%n", example.name(), example.description(),
                    example.defaultNodes());
            example.bugs().forEach((bug, description) -> System.out.printf("  --bug %-20s %s%n", bug, description));
            example.arguments().forEach((argument, description) -> System.out.printf("  --arg %-20s %s%n", argument,
                    description));
        }
    }
}
