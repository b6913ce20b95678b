package dev.deja.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ExampleScriptsTest {
    /** The source tree's root, where the scripts a Deja installation ships live. */
    private static final Path ROOT = Path.of("..");

    @Test
    void everyExamplesScript_existsInTheTree() {
        for (Example example : Examples.all()) {
            assertThat(example.script()).as(example.name()).isPresent();
            assertThat(ROOT.resolve(example.script().get())).as(example.name()).isRegularFile();
        }
    }

    @Test
    void everyShippedScript_isNamedByAnExample() throws IOException {
        List<Path> named = Examples.all().stream().map(Example::script).flatMap(Optional::stream)
                .map(script -> ROOT.resolve(script).normalize()).toList();
        try (Stream<Path> scripts = Files.list(ROOT.resolve("scripts"))) {
            assertThat(scripts.filter(path -> path.toString().endsWith(".py")).map(Path::normalize))
                    .containsExactlyInAnyOrderElementsOf(named);
        }
    }
}
