package dev.deja.bench.internal;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.deja.check.Violation;
import dev.deja.examples.Example;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The debugging a user does without Deja: after every event, each node writes its whole state (every field, as
 * Jackson sees it) as one JSON line to its own file, {@code DIR/<node>.jsonl}, and a CPython script
 * ({@code bench/baseline/<example>_check.py}) checks the same predicates as the Deja script over the dumps. The
 * dumping runs inside a replay, so the nodes' states are exactly those of the recorded run; each line carries the
 * event's position in Deja's merged order, which a real dump would not have (it favours the baseline).
 */
final class JsonDumpBaseline {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .visibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
            .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    private JsonDumpBaseline() {
    }

    /** The baseline checker of {@code example} in the installation at {@code home}, if there is one. */
    static Optional<Path> script(Path home, Example example) {
        Path script = home.resolve("bench/baseline/" + example.name() + "_check.py");
        return Files.isRegularFile(script) ? Optional.of(script) : Optional.empty();
    }

    /** The CPython interpreter on the PATH, if any. */
    static Optional<String> python() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(directory, "python3");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }

    /** Runs the baseline checker over the dumps in {@code dumps}; returns its findings as {@code predicate@position}. */
    static List<String> check(Path script, Path dumps) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(python().orElseThrow(() -> new IllegalStateException("no python3 on the PATH")),
                script.toString(), dumps.toString()).start();
        process.getOutputStream().close();
        // Standard error is drained on another thread so that neither stream can fill up and block the script.
        java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return process.getErrorStream().readAllBytes();
            } catch (IOException e) {
                return new byte[0];
            }
        });
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(script + " did not finish within 10 minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(script + " failed (exit " + process.exitValue() + "): "
                    + new String(err.join(), StandardCharsets.UTF_8).strip());
        }
        List<String> findings = new ArrayList<>();
        for (String line : new String(out, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode finding = MAPPER.readTree(line);
            if (finding.has("predicate")) {
                findings.add(finding.get("predicate").asText() + "@" + finding.get("position").asLong());
            }
        }
        return findings;
    }

    /** Deja's findings in the baseline's terms: each always-predicate violation as {@code predicate@position}. */
    static Set<String> dejaFindings(List<Violation> violations) {
        Set<String> findings = new TreeSet<>();
        violations.stream().filter(v -> v.kind() == Violation.Kind.ALWAYS && v.status() == Violation.Status.VIOLATED)
                .forEach(v -> findings.add(v.predicate() + "@" + v.event().position()));
        return findings;
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
