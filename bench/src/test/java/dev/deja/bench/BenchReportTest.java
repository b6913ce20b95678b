package dev.deja.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The results file's contract and its table, on a fixed results tree (not a measurement). */
class BenchReportTest {
    private static final Path FIXTURES = Paths.get("src/test/resources/dev/deja/bench");

    @TempDir
    Path temporary;

    @Test
    void table_ofTheFixture_matchesTheGoldenTable() throws IOException {
        String table = BenchReport.read(FIXTURES.resolve("results-fixture.json")).table();
        Path golden = FIXTURES.resolve("results-fixture.table.md");
        if (Boolean.getBoolean("deja.updateGolden")) {
            Files.writeString(golden, table);
        }
        assertThat(table).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }

    @Test
    void write_thenRead_keepsEveryKey() {
        BenchReport report = BenchReport.read(FIXTURES.resolve("results-fixture.json"));
        Path file = temporary.resolve("nested/latest.json");
        report.write(file);
        assertThat(BenchReport.read(file).json().toString()).isEqualTo(report.json().toString());
    }

    @Test
    void read_withoutAHeadlineKey_namesTheFileAndTheKey() throws IOException {
        ObjectNode tree = BenchReport.read(FIXTURES.resolve("results-fixture.json")).json();
        tree.remove("check_slowdown");
        Path file = temporary.resolve("broken.json");
        Files.writeString(file, tree.toString());
        assertThatThrownBy(() -> BenchReport.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("\"check_slowdown\"");
    }

    @Test
    void read_ofSomethingElse_saysWhatIsWrong() throws IOException {
        Path file = temporary.resolve("list.json");
        Files.writeString(file, "[1, 2]");
        assertThatThrownBy(() -> BenchReport.read(file)).hasMessageContaining("must be a JSON object");
        Path missing = temporary.resolve("missing.json");
        assertThatThrownBy(() -> BenchReport.read(missing)).hasMessageContaining("cannot read benchmark results from");
    }
}
