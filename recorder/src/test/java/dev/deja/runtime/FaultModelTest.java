package dev.deja.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.NodeId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultModelTest {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");

    @Test
    void fateOf_sameSeedAndMessage_isTheSameFate() {
        FaultModel model = FaultModel.builder().dropProbability(0.3).duplicateProbability(0.2).delayMillis(1, 50)
                .seed(7).build();
        FaultModel again = FaultModel.builder().dropProbability(0.3).duplicateProbability(0.2).delayMillis(1, 50)
                .seed(7).build();
        for (long id = 1; id < 500; id++) {
            assertThat(again.fateOf(N1, N2, id)).as("message %d", id).isEqualTo(model.fateOf(N1, N2, id));
        }
    }

    @Test
    void fateOf_otherSeed_dropsOtherMessages() {
        FaultModel seven = FaultModel.builder().dropProbability(0.3).seed(7).build();
        FaultModel eight = seven.toBuilder().seed(8).build();
        List<Long> droppedBySeven = LongStream.range(1, 500).filter(id -> seven.fateOf(N1, N2, id).dropped()).boxed().toList();
        List<Long> droppedByEight = LongStream.range(1, 500).filter(id -> eight.fateOf(N1, N2, id).dropped()).boxed().toList();
        assertThat(droppedBySeven).isNotEqualTo(droppedByEight);
        // about 30% each: the draw follows the probability
        assertThat(droppedBySeven.size()).isBetween(100, 200);
    }

    @Test
    void fateOf_delay_staysInTheRange() {
        FaultModel model = FaultModel.builder().delayMillis(5, 9).seed(3).build();
        for (long id = 1; id < 300; id++) {
            assertThat(model.fateOf(N2, N1, id).delayMillis()).isBetween(5L, 9L);
        }
    }

    @Test
    void fromJson_oldKeys_stillRead() {
        FaultModel model = FaultModel.fromJson(Map.of("dropProbability", 0.1, "maxExtraDelayMillis", 20));
        assertThat(model.dropProbability()).isEqualTo(0.1);
        assertThat(model.minDelayMillis()).isZero();
        assertThat(model.maxDelayMillis()).isEqualTo(20);
    }

    @Test
    void describe_readsBackAsTheSameModel() {
        FaultModel model = FaultModel.builder().dropProbability(0.2).duplicateProbability(0.05).delayMillis(2, 30)
                .partition(Partition.parse("n1|n2,n3@1s..2s")).crashRate(0.01).restartDelayMillis(250)
                .schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.KILL, "n2@1.5s"))
                .schedule(FaultModel.Scheduled.parse(FaultModel.Scheduled.Kind.RESTART, "n2@3s"))
                .clockSkewMillis(40).seed(99).build();
        assertThat(FaultModel.fromJson(model.describe())).isEqualTo(model);
    }

    @Test
    void fromJson_unknownKey_isRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> FaultModel.fromJson(Map.of("dropRate", 0.1)))
                .hasMessageContaining("unknown key 'dropRate'").hasMessageContaining("dropProbability");
    }

    @Test
    void delayRange_singleMax_meansZeroToMax() {
        assertThat(FaultModel.delayRange("20ms", "--delay")).containsExactly(0, 20);
        assertThat(FaultModel.delayRange("1ms..2s", "--delay")).containsExactly(1, 2000);
        assertThatThrownBy(() -> FaultModel.delayRange("9ms..2ms", "--delay")).hasMessageContaining("MAX is smaller");
        assertThatThrownBy(() -> FaultModel.delayRange("soon", "--delay")).hasMessageContaining("'soon' in --delay");
    }

    @Test
    void clusterFile_faultsNamingAnUnknownNode_isRefusedNamingTheFile(@TempDir Path directory) throws IOException {
        Path file = directory.resolve("cluster.json");
        Files.writeString(file, """
                { "nodes": { "n1": { "address": "127.0.0.1:7001", "class": "x.Node" } },
                  "faults": { "kill": [ "n9@1s" ] } }
                """);
        assertThatThrownBy(() -> ClusterSpec.read(file)).hasMessageContaining("cluster file " + file)
                .hasMessageContaining("cannot kill n9");
    }

    @Test
    void clusterFile_faultsSection_readsIntoTheModel(@TempDir Path directory) throws IOException {
        Path file = directory.resolve("cluster.json");
        Files.writeString(file, """
                { "nodes": { "n1": { "address": "127.0.0.1:7001", "class": "x.Node" },
                             "n2": { "address": "127.0.0.1:7002", "class": "x.Node" } },
                  "faults": { "seed": 5, "dropProbability": 0.25, "delayMillis": "1..9",
                              "partitions": [ "n1|n2@1s..2s" ], "kill": [ "n2@1s" ] } }
                """);
        FaultModel faults = ClusterSpec.read(file).faults();
        assertThat(faults.seed()).isEqualTo(5);
        assertThat(faults.dropProbability()).isEqualTo(0.25);
        assertThat(faults.maxDelayMillis()).isEqualTo(9);
        assertThat(faults.partitioned(N1, N2, 1500)).isTrue();
        assertThat(faults.partitioned(N1, N2, 2500)).isFalse();
        assertThat(faults.scheduled()).containsExactly(new FaultModel.Scheduled(FaultModel.Scheduled.Kind.KILL, N2, 1000));
    }
}
