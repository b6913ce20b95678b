package dev.deja.sim;

import dev.deja.runtime.Partition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Event;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceSummary;
import dev.deja.trace.TraceEvent;
import dev.deja.trace.TraceOrder;
import dev.deja.replay.MergedTrace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulator against real traces: determinism, replayability, crashes and partitions. */
class SimulatorIT {
    @TempDir
    Path temporary;

    private SimulationSettings faultyPaxos(long seed) {
        return SimulatedPaxos.settings(5, seed, Optional.of("latest-response")).dropProbability(0.2)
                .duplicateProbability(0.05).delayMillis(1, 30).crashRate(0.03).restartDelayMillis(200)
                .clockSkewMillis(50).partition(Partition.parse("n1,n2|n3,n4,n5@300ms..900ms"))
                .maxVirtualMillis(20_000).build();
    }

    @Test
    void sameSeedAndSettings_twice_giveByteIdenticalTraces() throws IOException {
        SimulationResult first = Simulator.run(faultyPaxos(7), temporary.resolve("a"));
        SimulationResult second = Simulator.run(faultyPaxos(7), temporary.resolve("b"));
        System.out.println("SimulatorIT: seed 7 " + first);
        assertThat(first.entries()).isGreaterThan(100);
        assertThat(first.crashes()).as("the run exercised crashes").isPositive();
        assertThat(second.entries()).isEqualTo(first.entries());
        Map<String, byte[]> a = files(temporary.resolve("a"));
        Map<String, byte[]> b = files(temporary.resolve("b"));
        assertThat(b.keySet()).isEqualTo(a.keySet());
        for (String name : a.keySet()) {
            assertThat(b.get(name)).as("bytes of %s", name).isEqualTo(a.get(name));
        }
        SimulationResult other = Simulator.run(faultyPaxos(8), temporary.resolve("c"));
        assertThat(files(temporary.resolve("c")).keySet().stream().anyMatch(name ->
                !java.util.Arrays.equals(files(temporary.resolve("c")).get(name), a.get(name))))
                .as("another seed gives another run").isTrue();
        assertThat(other.steps()).isPositive();
    }

    @Test
    void simulatedTrace_withCrashesDropsAndPartition_replaysWithoutDivergence() {
        Path trace = temporary.resolve("t");
        SimulationResult simulated = Simulator.run(faultyPaxos(3), trace);
        long[] crashesSeen = {0};
        ReplayResult replayed = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                .withListener((event, position, state) -> {
                    if (event.entry().event() instanceof Event.Crash) {
                        crashesSeen[0]++;
                    }
                }));
        assertThat(replayed.divergences()).isEmpty();
        assertThat(replayed.entries()).isEqualTo(simulated.entries());
        assertThat(crashesSeen[0]).as("crashes recorded before restarted incarnations").isPositive()
                .isLessThanOrEqualTo(simulated.crashes());
        TraceSummary summary = Trace.open(trace).summary().orElseThrow();
        assertThat(summary.kind()).isEqualTo("simulate");
        assertThat(summary.settings()).containsEntry("seed", 3).containsEntry("dropProbability", 0.2);
        assertThat(summary.events()).extracting(TraceSummary.LauncherEvent::action).contains("partition", "heal", "crash");
    }

    @Test
    void simulatedTrace_isMergedInTheOrderTheSimulatorRanIt_andAContradictingOrderIsRefused() throws IOException {
        // No clock skew: every entry's wall clock is the virtual time it ran at.
        SimulationSettings settings = SimulatedPaxos.settings(5, 3, Optional.of("latest-response")).dropProbability(0.2)
                .delayMillis(1, 30).crashRate(0.03).restartDelayMillis(200).maxVirtualMillis(20_000).build();
        Path trace = temporary.resolve("ordered");
        SimulationResult simulated = Simulator.run(settings, trace);
        assertThat(trace.resolve(TraceOrder.FILE)).exists();
        assertThat(trace.resolve(TraceOrder.FILE + ".partial")).doesNotExist();
        List<TraceEvent> ordered = merged(trace);
        assertThat(ordered).hasSize(Math.toIntExact(simulated.entries()));
        for (int i = 1; i < ordered.size(); i++) {
            assertThat(ordered.get(i).atMillis()).as("virtual time at position %d: %s after %s", i, ordered.get(i),
                    ordered.get(i - 1)).isGreaterThanOrEqualTo(ordered.get(i - 1).atMillis());
        }

        // The same logs without the order are merged by Lamport clock: the same entries, interleaved otherwise.
        Path unordered = temporary.resolve("unordered");
        copy(trace, unordered);
        Files.delete(unordered.resolve(TraceOrder.FILE));
        List<TraceEvent> byLamport = merged(unordered);
        assertThat(byLamport).containsExactlyInAnyOrderElementsOf(ordered).isNotEqualTo(ordered);

        // Runs in reverse: each node's entries keep their log order, but a receive now comes before its send.
        Path reversed = temporary.resolve("reversed");
        copy(trace, reversed);
        List<String> lines = Files.readAllLines(reversed.resolve(TraceOrder.FILE));
        List<String> runs = new ArrayList<>(lines.subList(1, lines.size()));
        java.util.Collections.reverse(runs);
        List<String> tampered = new ArrayList<>(List.of(lines.getFirst()));
        tampered.addAll(runs);
        Files.write(reversed.resolve(TraceOrder.FILE), tampered);
        assertThatThrownBy(() -> merged(reversed)).isInstanceOf(dev.deja.replay.ReplayException.class)
                .hasMessageContaining(reversed.resolve(TraceOrder.FILE) + ", line ")
                .hasMessageContaining("before its send, which happens before it: receive ");
    }

    @Test
    void continuedRun_ordersTheCopiedPrefix_andReplaysWhole() {
        SimulationSettings settings = SimulatedPaxos.settings(3, 4, Optional.empty()).dropProbability(0.1)
                .delayMillis(1, 30).maxVirtualMillis(5_000).build();
        Path recorded = temporary.resolve("recorded");
        Simulator.run(settings, recorded);
        Path continued = temporary.resolve("continued");
        SimulationResult result = Simulator.run(settings, continued, Simulator.Options.of(settings)
                .withStart(TraceStart.of(recorded, 60)));
        assertThat(continued.resolve(TraceOrder.FILE)).exists();
        List<TraceEvent> merged = merged(continued);
        assertThat(merged.subList(0, 61)).as("the prefix in the recording's order")
                .isEqualTo(merged(recorded).subList(0, 61));
        ReplayResult replayed = Replayer.replay(Trace.open(continued), Replayer.Options.defaults());
        assertThat(replayed.divergences()).isEmpty();
        assertThat(replayed.entries()).isEqualTo(merged.size());
        assertThat(result.steps()).isPositive();
    }

    private static List<TraceEvent> merged(Path trace) {
        List<TraceEvent> out = new ArrayList<>();
        try (MergedTrace merge = MergedTrace.open(Trace.open(trace))) {
            merge.forEachRemaining(out::add);
        }
        return out;
    }

    private static void copy(Path from, Path to) {
        files(from).forEach((name, bytes) -> {
            try {
                Path target = to.resolve(name);
                Files.createDirectories(target.getParent());
                Files.write(target, bytes);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void crash_losesUnsyncedWritesAndKeepsSyncedOnes() {
        List<String> output = new ArrayList<>();
        SimulationSettings settings = SimulationSettings.builder().seed(1)
                .node(new NodeId("n1"), DurableNode.class.getName(), Map.of())
                .crashRate(1).restartDelayMillis(100).maxSteps(3).stop(SimulationSettings.Stop.AT_LIMIT).build();
        SimulationResult result = Simulator.run(settings, temporary.resolve("crash"),
                Simulator.Options.of(settings).withNodeOutput(output::add));
        assertThat(result.crashes()).isPositive();
        assertThat(output).anyMatch(line -> line.contains("n1#1: start synced=absent unsynced=absent"));
        assertThat(output).anyMatch(line -> line.contains("n1#2: start synced=kept unsynced=absent"));
    }

    @Test
    void partition_dropsMessagesAcrossGroupsUntilItHeals() {
        SimulationSettings settings = SimulationSettings.builder().seed(1)
                .node(new NodeId("n1"), BeaconNode.class.getName(), Map.of())
                .node(new NodeId("n2"), BeaconNode.class.getName(), Map.of())
                .partition(Partition.parse("n1|n2@0ms..1s")).maxVirtualMillis(2_000).build();
        List<String> output = new ArrayList<>();
        SimulationResult result = Simulator.run(settings, temporary.resolve("p"),
                Simulator.Options.of(settings).withNodeOutput(output::add));
        assertThat(result.dropped()).as("beacons lost while partitioned").isPositive();
        List<Long> receiveTimes = output.stream().filter(line -> line.contains("beacon from"))
                .map(line -> Long.parseLong(line.strip().split(" ")[0])).toList();
        assertThat(receiveTimes).isNotEmpty().allSatisfy(ms -> assertThat(ms).isGreaterThanOrEqualTo(1_000));
    }

    @Test
    void existingTrace_isRefused() throws IOException {
        Path trace = Files.createDirectories(temporary.resolve("full"));
        Files.writeString(trace.resolve("x"), "x");
        assertThatThrownBy(() -> Simulator.run(faultyPaxos(1), trace))
                .hasMessageContaining("already holds files");
    }

    private static Map<String, byte[]> files(Path root) {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(path).toString(), Files.readAllBytes(path));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    /** Writes one key with sync and one without on its first timer; says at start what survived. */
    public static final class DurableNode implements Node {
        @Override
        public void onStart(Env env) {
            env.log("start synced=" + (env.storage().read("synced").isPresent() ? "kept" : "absent")
                    + " unsynced=" + (env.storage().read("unsynced").isPresent() ? "kept" : "absent"));
            env.setTimer(Duration.ofMillis(10), "write");
        }

        @Override
        public void onMessage(Env env, NodeId from, Object message) {
        }

        @Override
        public void onTimer(Env env, TimerId timer, Object tag) {
            env.storage().write("synced", "1".getBytes(StandardCharsets.UTF_8));
            env.storage().sync();
            env.storage().write("unsynced", "1".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Sends a beacon to its peers every 100 ms and logs the ones it receives. */
    public static final class BeaconNode implements Node {
        @Override
        public void onStart(Env env) {
            env.setTimer(Duration.ofMillis(100), "beacon");
        }

        @Override
        public void onMessage(Env env, NodeId from, Object message) {
            env.log("beacon from " + from);
        }

        @Override
        public void onTimer(Env env, TimerId timer, Object tag) {
            env.peers().forEach(peer -> env.send(peer, "beacon"));
            env.setTimer(Duration.ofMillis(100), "beacon");
        }
    }
}
