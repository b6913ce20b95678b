package dev.deja.trace;

import dev.deja.node.NodeId;
import dev.deja.trace.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A recorded run: a directory holding one directory per node, each with its logs and manifest. Node
 * directories normally sit in {@code TRACE/nodes/}, but logs copied from several hosts straight into one
 * folder form a trace too. Opening never writes anything.
 */
public final class Trace {
    /** The subdirectory holding node directories. */
    public static final String NODES = "nodes";

    private final Path directory;
    private final List<NodeLog> nodes;
    private final Optional<TraceSummary> summary;

    private Trace(Path directory, List<NodeLog> nodes, Optional<TraceSummary> summary) {
        this.directory = directory;
        this.nodes = nodes;
        this.summary = summary;
    }

    /** The directory where {@code node}'s logs of the trace at {@code traceDirectory} are written. */
    public static Path nodeDirectory(Path traceDirectory, NodeId node) {
        return traceDirectory.resolve(NODES).resolve(node.value());
    }

    /** Opens a trace directory, validating every node manifest. */
    public static Trace open(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new TraceFormatException("trace directory " + directory + " does not exist");
        }
        Path nodesDirectory = directory.resolve(NODES);
        Path parent = Files.isDirectory(nodesDirectory) ? nodesDirectory : directory;
        List<NodeLog> nodes = new ArrayList<>();
        try (Stream<Path> children = Files.list(parent)) {
            for (Path child : children.sorted().toList()) {
                if (Files.isDirectory(child) && Files.exists(child.resolve(NodeLog.MANIFEST))) {
                    nodes.add(NodeLog.open(child));
                } else if (Files.isDirectory(child) && parent == nodesDirectory) {
                    throw new TraceFormatException(child + ": a directory in " + nodesDirectory
                            + " without a " + NodeLog.MANIFEST + " (an incomplete copy of a node's logs?)");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + parent, e);
        }
        if (nodes.isEmpty()) {
            throw new TraceFormatException(directory + ": no node logs found (expected " + directory + "/"
                    + NODES + "/<node-id>/" + NodeLog.MANIFEST + ")");
        }
        return new Trace(directory, List.copyOf(nodes), readSummary(directory));
    }

    private static Optional<TraceSummary> readSummary(Path directory) {
        Path file = directory.resolve(TraceSummary.FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Json.MAPPER.readValue(file.toFile(), TraceSummary.class));
        } catch (IOException e) {
            throw new TraceFormatException(file + ": malformed trace summary: " + e.getMessage(), e);
        }
    }

    public Path directory() {
        return directory;
    }

    /** Every node's log, sorted by node id. */
    public List<NodeLog> nodes() {
        return nodes;
    }

    /** The log of {@code node}; fails with the list of recorded nodes if there is none. */
    public NodeLog node(NodeId node) {
        return nodes.stream().filter(n -> n.node().equals(node)).findFirst().orElseThrow(() ->
                new TraceFormatException(directory + ": no log of node " + node + " (recorded nodes: "
                        + String.join(", ", nodes.stream().map(n -> n.node().value()).toList()) + ")"));
    }

    /** {@code trace.json}, if the launcher wrote one. */
    public Optional<TraceSummary> summary() {
        return summary;
    }

    /**
     * Writes {@code trace.json} (launchers only), with each recorded node's code fingerprint taken from its manifest
     * when the summary has none.
     */
    public static void writeSummary(Path directory, TraceSummary summary) throws IOException {
        Files.createDirectories(directory);
        if (summary.code().isEmpty() && Files.isDirectory(directory.resolve(NODES))) {
            java.util.Map<String, String> code = new java.util.TreeMap<>();
            try (Stream<Path> children = Files.list(directory.resolve(NODES))) {
                for (Path child : children.toList()) {
                    if (Files.exists(child.resolve(NodeLog.MANIFEST))) {
                        NodeManifest manifest = NodeLog.readManifest(child);
                        if (manifest.codeVersion() != null) {
                            code.put(manifest.node().value(), manifest.nodeClass() + " " + manifest.codeVersion());
                        }
                    }
                }
            }
            summary = new TraceSummary(summary.formatVersion(), summary.kind(), summary.command(), summary.nodes(),
                    summary.startMillis(), summary.endMillis(), summary.settings(), summary.events(), code);
        }
        Json.writeAtomically(directory.resolve(TraceSummary.FILE), summary);
    }
}
