package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.Deployment;
import dev.deja.runtime.FaultModel;
import dev.deja.trace.Event;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja deploy --cluster} and {@code deja simulate --cluster} on a cluster file of the user's (here naming the
 * Paxos example's classes, as a user's file names theirs): faults from the file and the command line, a kill and a
 * restart, a partition, the fault seed in {@code trace.json}, and what the same seed reproduces.
 */
class DeployClusterIT {
    @TempDir
    Path temporary;

    private Path clusterFile(String faults) throws IOException {
        Path file = temporary.resolve("cluster-" + System.nanoTime() + ".json");
        Files.writeString(file, """
                { "nodes": {
                    "n1": { "address": "127.0.0.1:%d", "class": "dev.deja.examples.paxos.PaxosNode" },
                    "n2": { "address": "127.0.0.1:%d", "class": "dev.deja.examples.paxos.PaxosNode" },
                    "n3": { "address": "127.0.0.1:%d", "class": "dev.deja.examples.paxos.PaxosNode" } },
                  "clients": { "client": { "address": "127.0.0.1:%d", "class": "dev.deja.examples.paxos.PaxosClient" } },
                  "faults": %s }
                """.formatted(Deployment.freeLoopbackPort(), Deployment.freeLoopbackPort(), Deployment.freeLoopbackPort(), Deployment.freeLoopbackPort(), faults));
        return file;
    }

    @Test
    void deploy_clusterFileWithKillRestartAndPartition_recordsAReplayableTraceWithTheFaultSeed() throws Exception {
        Path cluster = clusterFile("{ \"dropProbability\": 0.1, \"maxExtraDelayMillis\": 5 }");
        Path trace = temporary.resolve("trace");
        CliRun.Output run = CliRun.run("deploy", "--cluster", cluster.toString(), "--kill", "n2@1s", "--restart", "n2@2s",
                "--partition", "n1|n2,n3@200ms..800ms", "--duration", "4s", "--fault-seed", "7",
                "--out", trace.toString(), "--work", temporary.resolve("work").toString());
        assertThat(run.status()).as(run.err() + run.out()).isZero();
        assertThat(run.out()).contains("faults: drop 0.1, delay 0..5 ms, partition n1|n2,n3@200ms..800ms, "
                        + "kill n2@1000ms, restart n2@2000ms")
                .contains("killed n2 (kill -9)").contains("restarted n2").contains("fault seed 7");
        String summary = Files.readString(trace.resolve("trace.json"));
        assertThat(summary).contains("\"seed\" : 7", "\"action\" : \"partition\"", "\"action\" : \"kill\"",
                "\"action\" : \"restart\"");
        assertThat(Files.readString(temporary.resolve("work").resolve("n1.log"))).doesNotContain("SLF4J");

        CliRun.Output replay = CliRun.run("replay", trace.toString());
        assertThat(replay.out()).contains("of 3 nodes").contains("divergences: 0");
    }

    /**
     * The measurement behind the fault seed: two deployments with the same seed. A message's fate is a function of
     * the seed, its two ends and its id, so a message id sent in both runs is lost in both or in neither; which
     * message (content, destination) a node sends under an id depends on thread timing, so the runs differ in what
     * they send. The test checks the first (no message meant to be dropped was received, in either run) and prints
     * how much the two runs' sends and drops overlap.
     */
    @Test
    void deploy_sameFaultSeedTwice_losesTheSameMessageIds() throws Exception {
        FaultModel model = FaultModel.builder().dropProbability(0.3).seed(11).build();
        Runs first = deployAndRead(model, "first");
        Runs second = deployAndRead(model, "second");
        for (Runs run : new Runs[] {first, second}) {
            assertThat(run.delivered).as("a message whose fate is 'dropped' was received (%s)", run.name)
                    .noneMatch(key -> model.fateOf(key.from, key.to, key.messageId).dropped());
            assertThat(run.sent).as("drops were injected").anyMatch(key -> model.fateOf(key.from, key.to, key.messageId).dropped());
        }
        Set<Key> commonSends = new HashSet<>(first.sent);
        commonSends.retainAll(second.sent);
        Set<Key> firstLost = lost(first);
        Set<Key> secondLost = lost(second);
        Set<Key> commonLost = new HashSet<>(firstLost);
        commonLost.retainAll(secondLost);
        long injectedInCommon = commonSends.stream().filter(key -> model.fateOf(key.from, key.to, key.messageId).dropped())
                .count();
        System.out.printf("fault seed 11, drop 0.3: sends %d and %d, the same (sender, id, destination) in both %d; "
                        + "unreceived %d and %d, the same in both %d; of the common sends, %d dropped by the seed in both "
                        + "runs alike%n", first.sent.size(), second.sent.size(), commonSends.size(), firstLost.size(),
                secondLost.size(), commonLost.size(), injectedInCommon);
        assertThat(commonSends).isNotEmpty();
    }

    private static Set<Key> lost(Runs run) {
        Set<Key> lost = new HashSet<>(run.sent);
        lost.removeAll(run.delivered);
        return lost;
    }

    private Runs deployAndRead(FaultModel model, String name) throws Exception {
        Path cluster = clusterFile(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(model.describe()));
        Path trace = temporary.resolve(name);
        CliRun.Output run = CliRun.run("deploy", "--cluster", cluster.toString(), "--duration", "3s",
                "--out", trace.toString(), "--work", temporary.resolve(name + "-work").toString());
        assertThat(run.status()).as(run.err() + run.out()).isZero();
        assertThat(ClusterSpec.read(cluster).faults().seed()).isEqualTo(11);
        Runs runs = new Runs(name);
        for (NodeLog log : Trace.open(trace).nodes()) {
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent event = cursor.next();
                    if (event.event() instanceof Event.Send send && !send.to().equals(event.node())
                            && !send.to().value().equals("client")) {
                        runs.sent.add(new Key(event.node(), send.to(), send.messageId()));
                    } else if (event.event() instanceof Event.Receive receive && !receive.from().equals(event.node())
                            && !receive.from().value().equals("client")) {
                        runs.delivered.add(new Key(receive.from(), event.node(), receive.messageId()));
                    }
                }
            }
        }
        return runs;
    }

    private record Key(NodeId from, NodeId to, long messageId) {
    }

    private static final class Runs {
        final String name;
        final Set<Key> sent = new HashSet<>();
        final Set<Key> delivered = new HashSet<>();

        Runs(String name) {
            this.name = name;
        }
    }

    @Test
    void simulate_clusterFile_runsTheUsersNodesAndKeepsTheCommand() throws Exception {
        Path cluster = clusterFile("{ \"dropProbability\": 0.1, \"kill\": [ \"n2@1s\" ] }");
        Path trace = temporary.resolve("sim");
        CliRun.Output run = CliRun.run("simulate", "--cluster", cluster.toString(), "--seed", "5", "--crash-rate", "0.001",
                "--out", trace.toString());
        assertThat(run.status()).as(run.err() + run.out()).isZero();
        assertThat(run.out()).contains("kill/restart times [n2@1000ms] are for deployments")
                .contains("simulated " + cluster + " on 3 nodes, seed 5")
                .contains("reproduce with: ./deja simulate --cluster " + cluster + " --seed 5 --crash-rate 0.001");
        assertThat(Files.readString(trace.resolve("trace.json")))
                .contains("\"command\" : \"deja simulate --cluster " + cluster)
                .contains("\"dropProbability\" : 0.1");
        CliRun.Output again = CliRun.run("simulate", "--cluster", cluster.toString(), "--seed", "5", "--crash-rate",
                "0.001", "--out", temporary.resolve("sim2").toString());
        assertThat(again.out().lines().filter(l -> l.startsWith("deja: simulated")).findFirst().orElseThrow()
                .replaceAll("; [0-9.]+ s \\(.*", "").replace("sim2", "sim"))
                .isEqualTo(run.out().lines().filter(l -> l.startsWith("deja: simulated")).findFirst().orElseThrow()
                        .replaceAll("; [0-9.]+ s \\(.*", ""));
    }

    @Test
    void deploy_neitherExampleNorCluster_isAUsageError() {
        CliRun.Output run = CliRun.run("deploy", "--out", temporary.resolve("x").toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("give either an EXAMPLE or --cluster FILE");
    }

}
