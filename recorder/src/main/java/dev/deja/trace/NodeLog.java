package dev.deja.trace;

import com.fasterxml.jackson.databind.JsonNode;
import dev.deja.node.NodeId;
import dev.deja.trace.internal.DocumentReader;
import dev.deja.trace.internal.EntryCodec;
import dev.deja.trace.internal.Json;
import dev.deja.trace.internal.Queues;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.NoSuchElementException;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

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
        NodeLog log = new NodeLog(nodeDirectory, readManifest(nodeDirectory));
        // Missing queue directories, empty files and zeroed headers are named when the trace opens, before any
        // command reasons about the entries of other nodes.
        for (NodeManifest.Incarnation incarnation : log.manifest.incarnations()) {
            Path queueDirectory = nodeDirectory.resolve(incarnation.queue());
            log.hasReadableQueue(incarnation, queueDirectory);
        }
        return log;
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
            throw new TraceFormatException(file + ": not a valid node manifest: " + Trace.firstLine(e.getMessage()), e);
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
            throw new TraceFormatException(file + ": malformed node manifest: " + Trace.firstLine(e.getMessage()), e);
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
            if (!hasReadableQueue(incarnation, queueDirectory)) {
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
                } catch (Exception | InternalError e) {
                    throw damaged(incarnation, queueDirectory, -1, e);
                }
            }
        }
        return total;
    }

    /**
     * Whether {@code incarnation}'s queue directory exists. An incarnation that did not complete (killed, whether or
     * not the node was restarted after it) may lack one: the kill came before it made its queue, so it has no
     * entries ({@link #noEntries}). A completed incarnation without one lost its log, which is named here instead of
     * showing up later as messages that were never sent.
     */
    private boolean hasQueue(NodeManifest.Incarnation incarnation, Path queueDirectory) {
        if (Files.isDirectory(queueDirectory)) {
            return true;
        }
        if (incarnation.completed()) {
            throw new TraceFormatException(queueDirectory + ": node " + manifest.node() + ", incarnation "
                    + incarnation.number() + ": the queue directory is missing (the manifest records this incarnation"
                    + " as shut down cleanly)");
        }
        return noEntries(incarnation, queueDirectory, "the queue directory is missing");
    }

    /**
     * Returns false (no queue to read) for {@code incarnation}, found without entries because of {@code what} in
     * {@code where}, unless the next incarnation says otherwise. Its first seq is the one after the last entry read
     * when the node restarted; if it is not this incarnation's first seq, this incarnation's entries could be read
     * then and are lost now: named as damage rather than left out.
     */
    private boolean noEntries(NodeManifest.Incarnation incarnation, Path where, String what) {
        List<NodeManifest.Incarnation> all = manifest.incarnations();
        int index = all.indexOf(incarnation);
        if (index + 1 < all.size() && all.get(index + 1).firstSeq() != incarnation.firstSeq()) {
            NodeManifest.Incarnation next = all.get(index + 1);
            throw new TraceFormatException(where + ": node " + manifest.node() + ", incarnation " + incarnation.number()
                    + ": " + what + ", but incarnation " + next.number() + " starts at seq " + next.firstSeq()
                    + ": this one held the entries from seq " + incarnation.firstSeq() + " to " + (next.firstSeq() - 1));
        }
        return false;
    }

    /**
     * Opens an incarnation's queue after checking its data files the way Chronicle would not: an empty file or a
     * zeroed header reads as a queue without entries, and a header Chronicle cannot parse fails with a dump of bytes.
     */
    private SingleChronicleQueue openQueue(NodeManifest.Incarnation incarnation, Path queueDirectory) {
        SingleChronicleQueue queue = null;
        try {
            queue = Queues.openReadOnly(queueDirectory);
            // Parses every data file's header now, so that damage there is named before any entry is read.
            queue.entryCount();
            return queue;
        } catch (Exception | InternalError e) {
            if (queue != null) {
                queue.close();
            }
            throw damaged(incarnation, queueDirectory, -1, e);
        }
    }

    /**
     * Whether {@code incarnation} has a queue to read, after checking it ({@link #hasQueue}, {@link #checkDataFiles}).
     * An incarnation that did not complete, killed before it made its queue or while its only data file was being
     * made, has none, whether it is the last or the node was restarted after it; the same in a completed incarnation,
     * or in one that the next incarnation's first seq says had entries, is damage.
     */
    private boolean hasReadableQueue(NodeManifest.Incarnation incarnation, Path queueDirectory) {
        return hasQueue(incarnation, queueDirectory) && checkDataFiles(incarnation, queueDirectory);
    }

    /**
     * Checks the header of each of {@code incarnation}'s data files and returns whether its queue can be opened. An
     * incarnation without data files, or one that did not complete and whose only data file a kill cut short while
     * Chronicle was making it (empty, its header zeroed, or its header word still marked as not complete), has no
     * entries: false, unless the next incarnation's first seq says it had some ({@link #noEntries}). Any other bad
     * header, or that one in a completed incarnation or beside another data file, is named on one line with the
     * file, node and incarnation.
     */
    private boolean checkDataFiles(NodeManifest.Incarnation incarnation, Path queueDirectory) {
        List<Path> files;
        try (Stream<Path> listed = Files.list(queueDirectory)) {
            files = listed.filter(f -> f.getFileName().toString().endsWith(".cq4")).sorted().toList();
        } catch (IOException e) {
            throw new TraceFormatException(queueDirectory + ": node " + manifest.node() + ", incarnation "
                    + incarnation.number() + ": cannot list the queue directory: " + e.getMessage(), e);
        }
        if (files.isEmpty()) {
            return noEntries(incarnation, queueDirectory, "the queue directory holds no data file");
        }
        // Any incarnation that did not complete was killed, restarted afterwards or not.
        boolean crashed = !incarnation.completed();
        for (Path file : files) {
            String what = headerProblem(file);
            if (what != null) {
                if (crashed && files.size() == 1 && cutWhileCreated(file)) {
                    return noEntries(incarnation, file, what);
                }
                throw new TraceFormatException(file + ": node " + manifest.node() + ", incarnation " + incarnation.number()
                        + ": " + what);
            }
        }
        return true;
    }

    /** Whether a data file looks like one whose creation a kill cut short: empty, or a header not (yet) written. */
    private static boolean cutWhileCreated(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            return channel.size() == 0 || header.position() < 4 || header.getInt(0) == 0 || (header.getInt(0) & 0x8000_0000) != 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** What is wrong with the start of a queue data file, or null. */
    private static String headerProblem(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size == 0) {
                return "the queue file is empty (0 bytes)";
            }
            ByteBuffer header = ByteBuffer.allocate(4);
            while (header.hasRemaining() && channel.read(header) >= 0) {
                // reads the first four bytes
            }
            if (header.hasRemaining()) {
                return "the queue file is truncated inside its header (" + size + " bytes)";
            }
            if (header.getInt(0) == 0) {
                return "the queue file's header is zeroed (no header at byte offset 0; " + size + " bytes)";
            }
            return headerContentProblem(channel, header.order(ByteOrder.LITTLE_ENDIAN).getInt(0), size);
        } catch (IOException e) {
            return "cannot read the queue file: " + e.getMessage();
        }
    }

    /**
     * What is wrong with the header document of a queue data file, or null. Chronicle trusts the positions it holds:
     * a flipped bit in one made it map gigabytes past the end of a small file until the heap ran out. The header is
     * read into the heap and decoded there, and every position in it must lie inside the file.
     */
    private static String headerContentProblem(FileChannel channel, int first, long size) throws IOException {
        int length = first & 0x3FFF_FFFF;
        if ((first & 0xC000_0000) != 0x4000_0000 || length < 8 || length > 1 << 20 || length + 4L > size) {
            return "the queue file's header is damaged (its first word 0x" + Integer.toHexString(first) + " is no complete"
                    + " header of at most " + Math.min(size - 4, 1 << 20) + " bytes; " + size + " bytes)";
        }
        ByteBuffer bytes = ByteBuffer.allocate(length + 4);
        channel.read(bytes, 0);
        String text;
        Queues.registerHeaderAliases();
        try {
            text = Wires.fromSizePrefixedBlobs(Bytes.wrapForRead(bytes.array()));
        } catch (Exception | InternalError e) {
            return "the queue file's header is damaged (it does not decode: " + e.getClass().getSimpleName() + "; " + size
                    + " bytes)";
        }
        for (String field : List.of("writePosition", "index2Index")) {
            Matcher value = Pattern.compile(field + ":\\s*\\[?\\s*(-?\\d+)").matcher(text);
            if (!value.find()) {
                return "the queue file's header is damaged (no " + field + "; " + size + " bytes)";
            }
            long position = Long.parseLong(value.group(1));
            if (position < 0 || position >= size) {
                return "the queue file's header is damaged (" + field + " " + position + " lies outside the file's "
                        + size + " bytes)";
            }
        }
        return null;
    }

    /**
     * A read of {@code queueDirectory} that Chronicle failed (its exceptions, or the JVM's for a read past the end of
     * a truncated, memory-mapped file): named as damage of the file being read, on one line.
     */
    private TraceFormatException damaged(NodeManifest.Incarnation incarnation, Path queueDirectory, long afterOffset,
                                         Throwable cause) {
        Path file = dataFile(queueDirectory, Integer.MIN_VALUE);
        String size = "";
        try {
            if (file != null && Files.isRegularFile(file)) {
                size = ", " + Files.size(file) + " bytes";
            }
        } catch (IOException ignored) {
            // The size is a detail.
        }
        String reason = cause instanceof InternalError
                ? "a read past the end of the file (truncated?)"
                : cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + Trace.firstLine(cause.getMessage()));
        return new TraceFormatException((file == null ? queueDirectory : file) + ": node " + manifest.node() + ", incarnation "
                + incarnation.number() + ": the queue file is damaged or truncated" + size
                + (afterOffset >= 0 ? "; reading after byte offset " + afterOffset : "") + " (" + reason + ")", cause);
    }

    /** The data file of {@code cycle} in {@code queueDirectory}, or its first one for {@code Integer.MIN_VALUE}. */
    private static Path dataFile(Path queueDirectory, int cycle) {
        if (cycle != Integer.MIN_VALUE) {
            return Queues.cycleFile(queueDirectory, cycle);
        }
        try (Stream<Path> listed = Files.list(queueDirectory)) {
            return listed.filter(f -> f.getFileName().toString().endsWith(".cq4")).sorted().findFirst().orElse(null);
        } catch (IOException e) {
            return null;
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
        private long documentsRead;
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
                boolean ended = false;
                try (DocumentContext context = readingDocument()) {
                    if (!context.isPresent()) {
                        ended = true;
                    } else {
                        documentsRead++;
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
                } catch (TraceFormatException e) {
                    throw e;
                } catch (Exception | InternalError e) {
                    // A read past the end of a truncated, memory-mapped file, or Chronicle's own failure.
                    throw new TraceFormatException(damagedMessage(tailer.cycle(), e), e);
                }
                if (ended) {
                    verifyComplete();
                    closeQueue();
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

        private DocumentContext readingDocument() {
            try {
                return tailer.readingDocument();
            } catch (Exception | InternalError e) {
                int cycle = tailer.cycle();
                throw new TraceFormatException(damagedMessage(cycle, e), e);
            }
        }

        private String damagedMessage(int cycle, Throwable cause) {
            TraceFormatException named = damaged(manifest.incarnations().get(incarnationIndex), queueDirectory,
                    documentOffset, cause);
            if (cycle == Integer.MIN_VALUE || cycle == 0) {
                return named.getMessage();
            }
            // Name the data file being read, not the queue's first.
            Path first = dataFile(queueDirectory, Integer.MIN_VALUE);
            Path reading = dataFile(queueDirectory, cycle);
            return first == null ? named.getMessage() : named.getMessage().replace(first.toString(), reading.toString());
        }

        /**
         * At the end of an incarnation's queue: Chronicle's index must count as many documents as were read. Fewer
         * read means the data of the rest was zeroed or overwritten (Chronicle stops at the first empty header as if
         * the log ended there), which is named here rather than leaving the node's later entries silently out. A
         * crashed incarnation may end with one document whose write was cut off.
         */
        private void verifyComplete() {
            NodeManifest.Incarnation incarnation = manifest.incarnations().get(incarnationIndex);
            long indexed;
            try {
                indexed = queue.entryCount();
            } catch (Exception | InternalError e) {
                throw new TraceFormatException(damagedMessage(Integer.MIN_VALUE, e), e);
            }
            long allowed = incarnation.completed() ? 0 : 1;
            if (indexed > documentsRead + allowed) {
                Path file = documentsRead > 0 ? Queues.cycleFile(queueDirectory, documentCycle) : dataFile(queueDirectory, Integer.MIN_VALUE);
                throw new TraceFormatException(file + ": node " + manifest.node() + ", incarnation " + incarnation.number()
                        + ": the queue's index counts " + indexed + " documents but only " + documentsRead
                        + " could be read" + (documentsRead > 0 ? ", the last at byte offset " + documentOffset : "")
                        + "; the data after it is zeroed or overwritten");
            }
        }

        private boolean openNextIncarnation() {
            incarnationIndex++;
            if (incarnationIndex >= manifest.incarnations().size()) {
                return false;
            }
            NodeManifest.Incarnation incarnation = manifest.incarnations().get(incarnationIndex);
            queueDirectory = directory.resolve(incarnation.queue());
            if (!hasReadableQueue(incarnation, queueDirectory)) {
                // An incarnation killed before its queue (or its only data file) was made, or without data files.
                return openNextIncarnation();
            }
            documentsRead = 0;
            documentOffset = -1;
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
