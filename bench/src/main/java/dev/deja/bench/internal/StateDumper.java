package dev.deja.bench.internal;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import dev.deja.trace.TraceEvent;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The debugging a user does without Deja: after every event, each node writes its whole state (every field, as
 * Jackson sees it) as one JSON line to its own file, {@code DIR/<node>.jsonl}, for a script to check afterwards.
 * Run here inside a replay, so the nodes' states are exactly those of the recorded run; each line carries the
 * event's position in Deja's merged order, which a real dump would not have (it favours the baseline).
 */
final class StateDumper {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    private StateDumper() {
    }

    /** Replays {@code trace}, dumping each node's state after each of its handler events into {@code directory}. */
    static ReplayResult dump(Path trace, Path directory) throws IOException {
        Files.createDirectories(directory);
        Map<NodeId, BufferedWriter> files = new HashMap<>();
        try {
            ReplayResult result = Replayer.replay(Trace.open(trace), Replayer.Options.defaults()
                    .withListener((event, position, state) -> {
                        if (!event.startedHandler()) {
                            return;
                        }
                        TraceEvent entry = event.entry();
                        Node node = state.node(entry.node()).orElse(null);
                        if (node == null) {
                            return;
                        }
                        try {
                            BufferedWriter out = files.computeIfAbsent(entry.node(), id -> open(directory, id));
                            out.write("{\"position\":" + position + ",\"node\":\"" + entry.node().value()
                                    + "\",\"incarnation\":" + entry.incarnation() + ",\"state\":");
                            MAPPER.writeValue(out, node);
                            out.write("}\n");
                        } catch (IOException e) {
                            throw new UncheckedIOException("cannot dump the state of " + entry.node(), e);
                        }
                    }));
            ReplayBenchmark.requireClean(result, trace);
            return result;
        } finally {
            for (BufferedWriter out : files.values()) {
                out.close();
            }
        }
    }

    private static BufferedWriter open(Path directory, NodeId node) {
        try {
            return Files.newBufferedWriter(directory.resolve(node.value() + ".jsonl"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the dump of " + node + " in " + directory, e);
        }
    }
}
