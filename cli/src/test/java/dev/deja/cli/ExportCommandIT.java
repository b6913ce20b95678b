package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deja export --shiviz} on a simulated three-node Paxos run with a crash: the whole log, golden. */
class ExportCommandIT {
    @TempDir
    Path temporary;

    @Test
    void export_shiviz_ofASmallRun_matchesTheGoldenLog() throws Exception {
        Path small = temporary.resolve("small");
        assertThat(CliRun.run("simulate", "paxos", "--nodes", "3", "--seed", "4", "--drop", "0.2", "--delay", "1ms..60ms",
                "--crash-rate", "0.01", "--restart-delay", "200ms", "--out", small.toString()).status()).isZero();
        Path log = temporary.resolve("small.shiviz.log");
        CliRun.Output output = CliRun.run("export", small.toString(), "--shiviz", log.toString());
        assertThat(output.status()).as(output.err()).isZero();
        assertThat(output.out()).isEqualTo("deja export: wrote 232 events of 3 nodes with vector clocks to " + log + "\n");
        String written = Files.readString(log);
        assertThat(written).isEqualTo(CliRun.golden("paxos-3-seed-4.shiviz.log", written));

        // --json: the same figures, typed, on standard output; the line for humans moves to standard error.
        CliRun.Output json = CliRun.run("export", small.toString(), "--shiviz", log.toString(), "--json");
        assertThat(json.status()).as(json.err()).isZero();
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out()).toString())
                .isEqualTo("{\"trace\":\"" + small + "\",\"shiviz\":\"" + log + "\",\"events\":232,\"nodes\":3}");
    }

    @Test
    void export_withoutShiviz_saysTheOptionIsMissing() {
        CliRun.Output output = CliRun.run("export", temporary.toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains("Missing required option: '--shiviz=FILE'");
    }
}
