package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.main.DejaCli;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class UnknownOptionTest {
    static Stream<String> subcommands() {
        return DejaCli.commandLine().getSubcommands().keySet().stream().filter(name -> !name.equals("help"));
    }

    @ParameterizedTest
    @MethodSource("subcommands")
    void unknownOption_anySubcommand_exitsWithTwo(String subcommand) {
        CliRun.Output output = CliRun.run(subcommand, "--no-such-option");
        assertThat(output.status()).as(output.err()).isEqualTo(2);
        // picocli names the unknown option, or first a missing required one and then the usage
        assertThat(output.err()).containsAnyOf("Unknown option: '--no-such-option'", "Missing required");
    }
}
