package dev.deja.trace;

import dev.deja.node.NodeId;
import dev.deja.trace.internal.EntryCodec;
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
    private final Optional<TraceOrder> order;

    private Trace(Path directory, List<NodeLog> nodes, Optional<TraceSummary> summary, Optional<TraceOrder> order) {
        this.directory = directory;
        this.nodes = nodes;
        this.summary = summary;
        this.order = order;
    }

    /** The directory where {@code node}'s logs of the trace at {@code traceDirectory} are written. */
    public static Path nodeDirectory(Path traceDirectory, NodeId node) {
        return traceDirectory.resolve(NODES).resolve(node.value());
    }

    /** Opens a trace directory, validating every node manifest. */
    public static Trace open(Path directory) {
        List<NodeLog> nodes = new ArrayList<>();
        for (Path child : nodeDirectories(directory)) {
            nodes.add(NodeLog.open(child));
        }
        Path nodesDirectory = directory.resolve(NODES);
        Path parent = Files.isDirectory(nodesDirectory) ? nodesDirectory : directory;
        Optional<TraceSummary> summary = readSummary(directory);
        if (summary.isPresent()) {
            // A node the launcher ran whose directory is gone is named here, before any reasoning about the messages
            // it sent blames the nodes that received them.
            for (String listed : summary.get().nodes()) {
                if (nodes.stream().noneMatch(n -> n.node().value().equals(listed))) {
                    throw new TraceFormatException(parent.resolve(listed) + ": node " + listed + " is listed in "
                            + TraceSummary.FILE + " but its log directory is missing (recorded nodes: "
                            + String.join(", ", nodes.stream().map(n -> n.node().value()).toList()) + ")");
                }
            }
        }
        return new Trace(directory, List.copyOf(nodes), summary, TraceOrder.find(directory));
    }

    /**
     * The manifests of the trace's nodes, read and validated, without opening their logs: what a command that replays
     * nothing needs to know about the recorded code ({@link CodeFingerprint#differences(List, ClassLoader)}). Opening
     * the logs checks every data file's header with Chronicle, whose start takes a new JVM a quarter of a second.
     */
    public static List<NodeManifest> manifests(Path directory) {
        return nodeDirectories(directory).stream().map(NodeLog::readManifest).toList();
    }

    /** The node log directories of the trace at {@code directory}, sorted; fails on none and on an incomplete one. */
    private static List<Path> nodeDirectories(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new TraceFormatException("trace directory " + directory + " does not exist");
        }
        Path nodesDirectory = directory.resolve(NODES);
        Path parent = Files.isDirectory(nodesDirectory) ? nodesDirectory : directory;
        List<Path> nodes = new ArrayList<>();
        try (Stream<Path> children = Files.list(parent)) {
            for (Path child : children.sorted().toList()) {
                if (Files.isDirectory(child) && Files.exists(child.resolve(NodeLog.MANIFEST))) {
                    nodes.add(child);
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
        return nodes;
    }

    private static Optional<TraceSummary> readSummary(Path directory) {
        Path file = directory.resolve(TraceSummary.FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            com.fasterxml.jackson.databind.JsonNode tree = Json.MAPPER.readTree(file.toFile());
            com.fasterxml.jackson.databind.JsonNode version = tree == null ? null : tree.get("formatVersion");
            if (version == null || !version.canConvertToInt()) {
                throw new TraceFormatException(file + ": trace summary has no formatVersion");
            }
            if (!EntryCodec.canRead(version.asInt())) {
                throw new TraceFormatException(file + ": the trace was recorded with format " + version.asInt()
                        + "; this build reads formats " + EntryCodec.OLDEST_READABLE_VERSION + " to " + EntryCodec.FORMAT_VERSION);
            }
            return Optional.of(Json.MAPPER.treeToValue(tree, TraceSummary.class));
        } catch (IOException | IllegalArgumentException e) {
            // Jackson's message runs over several lines (the source, a reference chain): its first one says it.
            throw new TraceFormatException(file + ": malformed trace summary: " + firstLine(e.getMessage()), e);
        }
    }

    static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
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

    /** The order a simulator ran the entries in ({@code order.txt}), if it wrote one; else merge by Lamport clock. */
    public Optional<TraceOrder> order() {
        return order;
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
