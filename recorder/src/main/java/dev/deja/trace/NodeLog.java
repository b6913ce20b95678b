package dev.deja.trace;

import com.fasterxml.jackson.databind.JsonNode;
import dev.deja.node.NodeId;
import dev.deja.trace.internal.DocumentReader;
import dev.deja.trace.internal.EntryCodec;
import dev.deja.trace.internal.Json;
import dev.deja.trace.internal.Queues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The recorded log of one node: its manifest and its entries, read in order across incarnations.
 *
 * <p>Opening validates the manifest and format version; iteration validates each entry's checksum and
 * throws {@link TraceFormatException} naming the file, node, entry index and byte offset of the first bad
 * entry. An entry whose write was cut off by a crash is never returned: Chronicle Queue only exposes
 * completed entries. Nothing is ever written. Not thread-safe.
 */
public final class NodeLog {
    /** The name of the manifest file in each node directory. */
    public static final String MANIFEST = "manifest.json";

    private final Path directory;
    private final NodeManifest manifest;

    private NodeLog(Path directory, NodeManifest manifest) {
        this.directory = directory;
        this.manifest = manifest;
    }

    /** Opens the node directory {@code TRACE/nodes/<id>}. */
    public static NodeLog open(Path nodeDirectory) {
        return new NodeLog(nodeDirectory, readManifest(nodeDirectory));
    }

    /** Reads and validates a node manifest. */
    public static NodeManifest readManifest(Path nodeDirectory) {
        Path file = nodeDirectory.resolve(MANIFEST);
        if (!Files.isDirectory(nodeDirectory)) {
            throw new TraceFormatException("node directory " + nodeDirectory + " does not exist");
        }
        if (!Files.isRegularFile(file)) {
            throw new TraceFormatException(file + ": missing node manifest (is " + nodeDirectory
                    + " a Deja node log directory?)");
        }
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            throw new TraceFormatException(file + ": not a valid node manifest: " + e.getMessage(), e);
        }
        JsonNode version = tree.get("formatVersion");
        if (version == null || !version.canConvertToInt()) {
            throw new TraceFormatException(file + ": node manifest has no formatVersion");
        }
        if (!EntryCodec.canRead(version.asInt())) {
            throw new TraceFormatException(file + ": node " + tree.path("node").asText("?") + " was recorded with format "
                    + version.asInt() + "; this build reads formats " + EntryCodec.OLDEST_READABLE_VERSION + " to "
                    + EntryCodec.FORMAT_VERSION);
        }
        NodeManifest manifest;
        try {
            manifest = Json.MAPPER.treeToValue(tree, NodeManifest.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new TraceFormatException(file + ": malformed node manifest: " + e.getMessage(), e);
        }
        if (manifest.node() == null || manifest.incarnations().isEmpty()) {
            throw new TraceFormatException(file + ": node manifest names no node or no incarnation");
        }
        if (!nodeDirectory.getFileName().toString().equals(manifest.node().value())) {
            throw new TraceFormatException(file + ": manifest is for node " + manifest.node()
                    + " but lies in directory " + nodeDirectory.getFileName());
        }
        return manifest;
    }

    public NodeId node() {
        return manifest.node();
    }

    public NodeManifest manifest() {
        return manifest;
    }

    public Path directory() {
        return directory;
    }

    /**
     * How many entries this node's log holds, counted without decoding entries (cheap: used to size progress bars):
     * from the queues' indexes in format 1, from each document's entry count in format 2.
     */
    public long entryCount() {
        long total = 0;
        for (NodeManifest.Incarnation incarnation : manifest.incarnations()) {
            Path queueDirectory = directory.resolve(incarnation.queue());
            if (!Files.isDirectory(queueDirectory)) {
                continue;
            }
            try (SingleChronicleQueue queue = openQueue(incarnation, queueDirectory)) {
                if (manifest.formatVersion() == 1) {
                    total += queue.entryCount();
                    continue;
                }
                try (ExcerptTailer tailer = queue.createTailer()) {
                    while (true) {
                        try (DocumentContext document = tailer.readingDocument()) {
                            if (!document.isPresent()) {
                                break;
                            }
                            total += document.wire().bytes().readStopBit();
                        }
                    }
                }
            }
        }
        return total;
    }

    private SingleChronicleQueue openQueue(NodeManifest.Incarnation incarnation, Path queueDirectory) {
        try {
            return Queues.openReadOnly(queueDirectory);
        } catch (RuntimeException e) {
            throw new TraceFormatException(queueDirectory + ": node " + manifest.node()
                    + ": cannot open the log of incarnation " + incarnation.number() + ": " + e.getMessage(), e);
        }
    }

    /** Opens a cursor over every entry, first incarnation first. Close it to release the queue files. */
    public Cursor cursor() {
        return new Cursor();
    }

    /**
     * A forward cursor over a node's entries, also usable as an {@link Iterator}. After {@link #next()},
     * {@link #index()}, {@link #file()} and {@link #byteOffset()} locate the entry just returned.
     */
    public final class Cursor implements Iterator<TraceEvent>, AutoCloseable {
        private final EntryCodec codec = new EntryCodec(manifest.formatVersion());
        private final DocumentReader document = new DocumentReader(manifest.formatVersion());
        private byte[] stored = new byte[256]; // the current document; reused: the codec copies out what it keeps
        private boolean inDocument;
        private long documentOffset;
        private int documentCycle;
        private int incarnationIndex = -1;
        private SingleChronicleQueue queue;
        private ExcerptTailer tailer;
        private Path queueDirectory;
        private TraceEvent next;
        private long index = -1;
        private Path file;
        private long byteOffset = -1;
        private long decoded;
        private long nextIndex;
        private Path nextQueueDirectory;
        private int nextCycle;
        private Path fileQueueDirectory;
        private int fileCycle;
        private long nextByteOffset;

        private Cursor() {
        }

        @Override
        public boolean hasNext() {
            if (next == null) {
                next = advance();
            }
            return next != null;
        }

        @Override
        public TraceEvent next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            TraceEvent result = next;
            next = null;
            index = nextIndex;
            fileQueueDirectory = nextQueueDirectory; // the file name is formatted only when asked for
            fileCycle = nextCycle;
            file = null;
            byteOffset = nextByteOffset;
            return result;
        }

        /** The index of the last returned entry in this node's log (0-based, across incarnations). */
        public long index() {
            return index;
        }

        /** The queue data file holding the last returned entry. */
        public Path file() {
            if (file == null && fileQueueDirectory != null) {
                file = Queues.cycleFile(fileQueueDirectory, fileCycle);
            }
            return file;
        }

        /** The byte offset of the last returned entry's data in {@link #file()}. */
        public long byteOffset() {
            return byteOffset;
        }

        private TraceEvent advance() {
            while (true) {
                if (inDocument && document.hasNext()) {
                    return nextInDocument();
                }
                inDocument = false;
                if (tailer == null && !openNextIncarnation()) {
                    return null;
                }
                try (DocumentContext context = tailer.readingDocument()) {
                    if (!context.isPresent()) {
                        closeQueue();
                        continue;
                    }
                    Bytes<?> bytes = context.wire().bytes();
                    documentOffset = bytes.readPosition();
                    documentCycle = tailer.cycle();
                    int length = (int) bytes.readRemaining();
                    if (stored.length < length) {
                        stored = new byte[Math.max(length, stored.length * 2)];
                    }
                    bytes.read(stored, 0, length);
                    try {
                        document.start(stored, length);
                    } catch (EntryCodec.CorruptEntryException e) {
                        throw corrupted(documentOffset, e);
                    }
                    inDocument = true;
                }
            }
        }

        private TraceEvent nextInDocument() {
            long entryIndex = decoded;
            long offset = documentOffset;
            try {
                document.next();
                offset = documentOffset + document.entryOffset();
                TraceEvent event = codec.decode(manifest.node(), stored, document.entryOffset(), document.entryLength());
                nextIndex = entryIndex;
                nextQueueDirectory = queueDirectory;
                nextCycle = documentCycle;
                nextByteOffset = offset;
                decoded++;
                return event;
            } catch (EntryCodec.CorruptEntryException e) {
                throw corrupted(offset, e);
            }
        }

        private TraceFormatException corrupted(long offset, EntryCodec.CorruptEntryException e) {
            return new TraceFormatException(Queues.cycleFile(queueDirectory, documentCycle) + ": node " + manifest.node()
                    + ", entry " + decoded + " (incarnation " + manifest.incarnations().get(incarnationIndex).number()
                    + "), byte offset " + offset + ": corrupted entry: " + e.getMessage(), e);
        }

        private boolean openNextIncarnation() {
            incarnationIndex++;
            if (incarnationIndex >= manifest.incarnations().size()) {
                return false;
            }
            NodeManifest.Incarnation incarnation = manifest.incarnations().get(incarnationIndex);
            queueDirectory = directory.resolve(incarnation.queue());
            if (!Files.isDirectory(queueDirectory)) {
                // An incarnation killed before its queue directory was created has no entries.
                return openNextIncarnation();
            }
            queue = openQueue(incarnation, queueDirectory);
            tailer = queue.createTailer();
            codec.startLog();
            return true;
        }

        private void closeQueue() {
            if (queue != null) {
                queue.close();
            }
            queue = null;
            tailer = null;
        }

        @Override
        public void close() {
            closeQueue();
            inDocument = false;
            incarnationIndex = manifest.incarnations().size();
        }
    }
}
