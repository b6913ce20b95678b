package dev.deja.trace;

import dev.deja.node.NodeId;
import dev.deja.trace.internal.DocumentBuilder;
import dev.deja.trace.internal.EntryCodec;
import dev.deja.trace.internal.Json;
import dev.deja.trace.internal.Queues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

/**
 * Appends one incarnation's entries to {@code TRACE/nodes/<id>/log-<incarnation>/} and keeps the node
 * manifest up to date. The only class that writes traces.
 *
 * <p>Opening a node directory that already holds a log continues it: the new incarnation's number, seq and
 * Lamport clock follow the last completed entry of the previous one, and {@link #previousIncarnationCrashed()}
 * tells whether the previous incarnation ended without a clean shutdown.
 *
 * <p>Entries go into a memory-mapped file: no system call, no fsync, so the calling handler thread never waits
 * for the disk, and an entry once written survives {@code kill -9} of the process (the page cache belongs to the
 * kernel). An entry appended outside a handler call is written before {@link #append} returns; the entries of a
 * handler call ({@link #beginHandler()} to {@link #endHandler()}) are written together, as one queue document, when
 * it ends, since one document costs the queue about as much as one entry. Inside a group ({@link #beginGroup()} to
 * {@link #endGroup()}) the entries of every handler call that ends are held too and written as one document when the
 * group ends: a live node groups the calls it runs back to back, a group commit. Confined to one thread at a time;
 * {@link #close()} must not race with {@link #append}.
 */
public final class NodeLogWriter implements TraceSink, AutoCloseable {
    /**
     * A handler call whose entries outgrow this is written in several documents (each still before the handler
     * ends), so that no document nears the queue's limits.
     */
    static final int MAX_DOCUMENT_BYTES = 64 << 10;

    private final Path nodeDirectory;
    private final EntryCodec codec = new EntryCodec();
    private final DocumentBuilder document = new DocumentBuilder();
    private Bytes<byte[]> documentView; // a Chronicle view of the document's buffer, made again when the buffer grows
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    private final int incarnation;
    private final boolean previousCrashed;
    private final long lastLamportBefore;
    private NodeManifest manifest;
    private long nextSeq;
    private boolean inHandler;
    private boolean inGroup;
    private boolean closed;
    private TraceWriteException failure;

    private NodeLogWriter(Path nodeDirectory, NodeManifest manifest, int incarnation, long nextSeq,
                          long lastLamportBefore, boolean previousCrashed, InstantSource clock) {
        this.nodeDirectory = nodeDirectory;
        this.manifest = manifest;
        this.incarnation = incarnation;
        this.nextSeq = nextSeq;
        this.lastLamportBefore = lastLamportBefore;
        this.previousCrashed = previousCrashed;
        Path queueDirectory = nodeDirectory.resolve(manifest.lastIncarnation().queue());
        this.queue = clock == null ? Queues.openForAppend(queueDirectory) : Queues.openForAppend(queueDirectory, clock);
        this.appender = queue.createAppender();
    }

    /**
     * Opens the log of {@code node} under {@code traceDirectory} for a new incarnation.
     *
     * @param minimumIncarnation the incarnation number the runtime already knows of (from the node's
     *                           storage); the new incarnation is at least this
     * @param nowMillis          the wall-clock time to note in the manifest
     */
    public static NodeLogWriter open(Path traceDirectory, NodeId node, String nodeClass, String codeVersion,
                                     int minimumIncarnation, long nowMillis) {
        return open(traceDirectory, node, nodeClass, codeVersion, minimumIncarnation, nowMillis, null);
    }

    /**
     * Like {@link #open(Path, NodeId, String, String, int, long)}, with the queue's time taken from
     * {@code clock} (virtual time in the simulator, so that a run's files are the same every time), or from the
     * system clock when {@code clock} is null.
     */
    public static NodeLogWriter open(Path traceDirectory, NodeId node, String nodeClass, String codeVersion,
                                     int minimumIncarnation, long nowMillis, InstantSource clock) {
        Path nodeDirectory = Trace.nodeDirectory(traceDirectory, node);
        try {
            Files.createDirectories(nodeDirectory);
            NodeManifest previous = Files.exists(nodeDirectory.resolve(NodeLog.MANIFEST))
                    ? NodeLog.readManifest(nodeDirectory) : null;
            long nextSeq = 0;
            long lastLamport = 0;
            boolean crashed = false;
            int incarnation = Math.max(1, minimumIncarnation);
            NodeManifest manifest;
            if (previous != null && previous.formatVersion() != EntryCodec.FORMAT_VERSION) {
                throw new TraceFormatException(nodeDirectory + ": the log of node " + node + " was recorded with format "
                        + previous.formatVersion() + "; this build records format " + EntryCodec.FORMAT_VERSION
                        + " and cannot continue it (record into a new trace directory)");
            }
            if (previous == null) {
                manifest = new NodeManifest(EntryCodec.FORMAT_VERSION, node, nodeClass, codeVersion, nowMillis,
                        null, false, List.of());
            } else {
                if (!previous.node().equals(node)) {
                    throw new TraceFormatException(nodeDirectory + ": holds the log of node " + previous.node()
                            + ", not " + node);
                }
                try (NodeLog.Cursor cursor = NodeLog.open(nodeDirectory).cursor()) {
                    while (cursor.hasNext()) {
                        TraceEvent last = cursor.next();
                        nextSeq = last.seq() + 1;
                        lastLamport = last.lamport();
                    }
                }
                crashed = !previous.lastIncarnation().completed();
                incarnation = Math.max(incarnation, previous.lastIncarnation().number() + 1);
                manifest = previous;
            }
            manifest = manifest.withIncarnation(new NodeManifest.Incarnation(
                    incarnation, "log-" + incarnation, nextSeq, nowMillis, null, false));
            Json.writeAtomically(nodeDirectory.resolve(NodeLog.MANIFEST), manifest);
            return new NodeLogWriter(nodeDirectory, manifest, incarnation, nextSeq, lastLamport, crashed, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the log of node " + node + " in " + nodeDirectory, e);
        }
    }

    /** The number of the incarnation this writer records. */
    public int incarnation() {
        return incarnation;
    }

    /** The seq the next appended entry must have. */
    public long nextSeq() {
        return nextSeq;
    }

    /** The Lamport clock of the last entry of previous incarnations, or 0 for a new node. */
    public long lastLamportBefore() {
        return lastLamportBefore;
    }

    /** Whether the previous incarnation's recording ended without a clean shutdown. */
    public boolean previousIncarnationCrashed() {
        return previousCrashed;
    }

    /**
     * Appends one entry; its seq must be {@link #nextSeq()} and its incarnation this writer's. Written before this
     * returns, unless inside a handler call.
     */
    @Override
    public void append(TraceEvent entry) {
        if (failure != null) {
            throw failure;
        }
        if (closed) {
            throw new IllegalStateException("log of " + manifest.node() + " is closed");
        }
        if (entry.seq() != nextSeq || entry.incarnation() != incarnation) {
            throw new IllegalArgumentException("invariant seq-contiguous violated: expected seq " + nextSeq
                    + " of incarnation " + incarnation + ", got " + entry);
        }
        int length = codec.encode(entry);
        if (document.count() > 0 && document.entryBytes() + length > MAX_DOCUMENT_BYTES) {
            writeDocument();
        }
        document.add(codec.encoded(), length);
        nextSeq++;
        if (!inHandler) {
            writeDocument();
        }
    }

    /** Holds the entries appended from now on until {@link #endHandler()}. */
    @Override
    public void beginHandler() {
        inHandler = true;
    }

    /** Writes the entries held since {@link #beginHandler()} as one document. */
    @Override
    public void endHandler() {
        inHandler = false;
        if (!inGroup) {
            writeHeld();
        }
    }

    /**
     * Holds the entries of the handler calls that end from now on until {@link #endGroup()}, which writes them as one
     * document. Whoever groups calls must keep their effects (the messages they send) back until then, as for a
     * single call: a {@code kill -9} before the group is written loses all of its calls.
     */
    public void beginGroup() {
        inGroup = true;
    }

    /** Writes the entries held since {@link #beginGroup()} (those of a handler call still running included). */
    public void endGroup() {
        inGroup = false;
        writeHeld();
    }

    /** Writes the entries held, if any, unless the log is closed. */
    private void writeHeld() {
        if (document.count() > 0 && !closed) {
            writeDocument();
        }
    }

    private void writeDocument() {
        document.finish();
        if (documentView == null || documentView.underlyingObject() != document.bytes()) {
            documentView = Bytes.wrapForRead(document.bytes());
        }
        documentView.readPositionRemaining(document.start(), document.length());
        try {
            appender.writeBytes(documentView);
        } catch (Exception | InternalError e) {
            // A memory-mapped page the file system cannot back (a full disk) faults as an InternalError; nothing
            // more can be written. Chronicle exposes only completed documents, so what was written stays readable.
            throw stopWriting(e);
        }
        document.clear();
    }

    /** Closes the log after a failed write and says why on one line; the incarnation stays incomplete. */
    private TraceWriteException stopWriting(Throwable cause) {
        long firstUnwritten = nextSeq - document.count();
        closed = true;
        document.clear();
        try {
            appender.close();
            queue.close();
        } catch (Exception | InternalError ignored) {
            // Closing a queue on a full disk may fail too; the files are left as they are.
        }
        Path queueDirectory = nodeDirectory.resolve(manifest.lastIncarnation().queue());
        String space;
        try {
            space = Files.getFileStore(queueDirectory).getUsableSpace() + " bytes free";
        } catch (IOException e) {
            space = "free space unknown";
        }
        String reason = cause instanceof InternalError ? "the file system could not back a new page of the queue file"
                + " (disk full?)" : cause.getClass().getSimpleName() + ": " + String.valueOf(cause.getMessage()).lines().findFirst().orElse("");
        failure = new TraceWriteException(queueDirectory + ": node " + manifest.node() + ", incarnation " + incarnation
                + ": recording stopped at seq " + firstUnwritten + ": " + reason + " (" + space
                + "); the entries written before stay readable", cause);
        return failure;
    }

    /**
     * Closes the queue without marking the incarnation complete and drops the entries of an unfinished handler call,
     * as a process killed at this point leaves it: the next {@link #open} of this node sees a crashed incarnation.
     * The simulator's crash.
     */
    public void abandon() {
        if (closed) {
            return;
        }
        closed = true;
        document.clear();
        appender.close();
        queue.close();
    }

    /** Writes the entries still held, marks the recording of this incarnation complete and closes the queue. */
    @Override
    public void close() {
        close(System.currentTimeMillis());
    }

    /** Like {@link #close()}, noting {@code nowMillis} as the end time. */
    public void close(long nowMillis) {
        if (closed) {
            return;
        }
        writeHeld();
        closed = true;
        appender.close();
        queue.close();
        manifest = manifest.completedAt(nowMillis);
        try {
            Json.writeAtomically(nodeDirectory.resolve(NodeLog.MANIFEST), manifest);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot complete the manifest of node " + manifest.node(), e);
        }
    }
}
