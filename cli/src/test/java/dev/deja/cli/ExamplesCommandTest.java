package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.examples.Example;
import dev.deja.examples.Examples;
import org.junit.jupiter.api.Test;

class ExamplesCommandTest {
    @Test
    void examples_everyBug_isPrintedWithTheCommandThatShowsIt() {
        CliRun.Output output = CliRun.run("examples");
        assertThat(output.status()).isZero();
        for (Example example : Examples.all()) {
            for (String bug : example.bugs().keySet()) {
                assertThat(ExamplesCommand.shownBy(example, bug)).as("%s --bug %s has a command", example.name(), bug)
                        .hasValueSatisfying(command -> assertThat(command).contains("--bug " + bug).doesNotContain("…"));
                assertThat(output.out()).contains("shown by: " + ExamplesCommand.shownBy(example, bug).orElseThrow());
            }
        }
    }
}
