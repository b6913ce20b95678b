package dev.deja.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.trace.TraceSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network a continuation of a recording runs on: a simulated trace's own settings from its trace.json, and without
 * trace.json (as a trace assembled from node directories) delays, loss and duplication measured on the logs, which must
 * lie within what the simulator was told to draw.
 */
class RecordedNetworkIT {
    @TempDir
    Path temporary;

    @Test
    void of_simulatedTrace_takesItsSettingsThenMeasuresThemWithoutTraceJson() throws Exception {
        Path trace = temporary.resolve("paxos");
        Simulator.run(SimulatedPaxos.settings(3, 1, Optional.empty()).dropProbability(0.2).delayMillis(5, 40)
                .maxVirtualMillis(10_000).build(), trace);

        RecordedNetwork recorded = RecordedNetwork.of(TraceStart.Recording.read(trace));
        assertThat(recorded).isEqualTo(new RecordedNetwork(0.2, 0, 5, 40, "trace.json of deja simulate"));

        Files.delete(trace.resolve(TraceSummary.FILE));
        RecordedNetwork measured = RecordedNetwork.of(TraceStart.Recording.read(trace));
        System.out.println("RecordedNetworkIT: measured " + measured.describe());
        assertThat(measured.source()).startsWith("delays measured on ").endsWith("loss and duplication measured");
        assertThat(measured.minDelayMillis()).isBetween(5L, 40L);
        assertThat(measured.maxDelayMillis()).isBetween(measured.minDelayMillis(), 40L);
        assertThat(measured.dropProbability()).as("20%% drawn; the share measured on this run").isBetween(0.05, 0.35);
        assertThat(measured.duplicateProbability()).isZero();
    }
}
