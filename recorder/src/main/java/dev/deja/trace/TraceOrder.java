package dev.deja.trace;

import dev.deja.node.NodeId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The order in which a simulator ran a trace's entries, kept in {@code TRACE/order.txt}: a header line
 * {@code deja-trace-order 1}, then one line per run of consecutive entries of one node, {@code NODE COUNT}
 * (the node's next {@code COUNT} entries, in its log order). A simulator runs one handler call at a time, so a run
 * is at least one whole handler call.
 *
 * <p>Any linearization of happens-before is a valid replay order; this one is the order the run actually had, in
 * which virtual time never goes backwards, so a predicate that reads the virtual clock sees at every position what
 * the simulator saw at the same step. A recorded deployment has no such file: its logs are merged by Lamport clock.
 * The file says nothing a reader must trust: the replayer checks it against the logs and against happens-before as
 * it reads (see the replayer's merge).
 *
 * <p>The writer writes {@code order.txt.partial} and renames it when the run ends, so that a run cut short leaves
 * no order that does not cover its logs. Reading never writes.
 */
public final class TraceOrder {
    /** The file's name in the trace directory. */
    public static final String FILE = "order.txt";
    /** The version this build writes and the only one it reads. */
    public static final int FORMAT_VERSION = 1;
    private static final String HEADER = "deja-trace-order";

    private final Path file;

    private TraceOrder(Path file) {
        this.file = file;
    }

    /** The file. */
    public Path file() {
        return file;
    }

    /**
     * The order of the trace at {@code directory}, if it has one; its header is checked here, its runs as they are
     * read ({@link #cursor}).
     */
    public static Optional<TraceOrder> find(Path directory) {
        Path file = directory.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            readHeader(file, reader.readLine());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return Optional.of(new TraceOrder(file));
    }

    private static void readHeader(Path file, String line) {
        if (line == null || !line.startsWith(HEADER + " ")) {
            throw new TraceFormatException(file + ", line 1: expected the header '" + HEADER + " " + FORMAT_VERSION
                    + "', found " + (line == null ? "an empty file" : "'" + line + "'"));
        }
        String version = line.substring(HEADER.length() + 1).strip();
        if (!version.equals(Integer.toString(FORMAT_VERSION))) {
            throw new TraceFormatException(file + ": the order was written with format " + version
                    + "; this build reads format " + FORMAT_VERSION);
        }
    }

    /** Reads the runs from the first, naming only nodes in {@code recorded} (else it fails naming the line). */
    public Cursor cursor(Collection<NodeId> recorded) {
        return new Cursor(file, recorded);
    }

    /** Runs of one node's entries, in the order the simulator ran them. Not thread-safe; close it. */
    public static final class Cursor implements AutoCloseable {
        private final Path file;
        private final BufferedReader reader;
        private final Map<String, NodeId> recorded = new HashMap<>();
        private long line = 1;
        private NodeId node;
        private long count;

        private Cursor(Path file, Collection<NodeId> nodes) {
            this.file = file;
            for (NodeId id : nodes) {
                recorded.put(id.value(), id);
            }
            try {
                reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                readHeader(file, reader.readLine());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
        }

        /** Moves to the next run; false at the end of the file. */
        public boolean next() {
            String text;
            try {
                text = reader.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
            }
            if (text == null) {
                node = null;
                return false;
            }
            line++;
            int space = text.indexOf(' ');
            NodeId named = space < 0 ? null : recorded.get(text.substring(0, space));
            if (space < 0) {
                throw new TraceFormatException(where() + ": expected 'NODE COUNT', found '" + text + "'");
            }
            if (named == null) {
                throw new TraceFormatException(where() + ": node " + text.substring(0, space)
                        + " has no log in the trace (recorded nodes: "
                        + String.join(", ", recorded.keySet().stream().sorted().toList()) + ")");
            }
            try {
                count = Long.parseLong(text.substring(space + 1));
            } catch (NumberFormatException e) {
                count = 0;
            }
            if (count < 1) {
                throw new TraceFormatException(where() + ": expected a positive number of entries of node " + named
                        + ", found '" + text.substring(space + 1) + "'");
            }
            node = named;
            return true;
        }

        /** The node of the current run. */
        public NodeId node() {
            return node;
        }

        /** How many consecutive entries of {@link #node()} the current run holds. */
        public long count() {
            return count;
        }

        /** The file and line of the current run, for error messages. */
        public String where() {
            return file + ", line " + line;
        }

        @Override
        public void close() {
            try {
                reader.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
            }
        }
    }

    /** Writes a run's order entry by entry; the simulator's, confined to its thread. */
    public static final class Writer implements AutoCloseable {
        private final Path partial;
        private final Path file;
        private final OutputStream out;
        /** Each node's id as ASCII bytes, made once: a line is written per run, often per handler call. */
        private final Map<NodeId, byte[]> names = new HashMap<>();
        /** Lines not yet written: filled by hand, without the locking of a buffered stream's every call. */
        private final byte[] buffer = new byte[1 << 16];
        private int buffered;
        private NodeId node;
        private long count;
        private boolean closed;

        private Writer(Path directory) {
            this.file = directory.resolve(FILE);
            this.partial = directory.resolve(FILE + ".partial");
            try {
                Files.createDirectories(directory);
                out = Files.newOutputStream(partial);
                out.write((HEADER + " " + FORMAT_VERSION + "\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + partial + ": " + e.getMessage(), e);
            }
        }

        /** Starts the order of a new trace at {@code directory}. */
        public static Writer create(Path directory) {
            return new Writer(directory);
        }

        /** Notes that the next entry of the run is {@code entry}'s node's next one. */
        public void entry(NodeId entry) {
            if (entry.equals(node)) {
                count++;
                return;
            }
            flushRun();
            node = entry;
            count = 1;
        }

        /** Notes {@code entries} consecutive entries of {@code of}. */
        public void entries(NodeId of, long entries) {
            if (entries <= 0) {
                return;
            }
            if (!of.equals(node)) {
                flushRun();
                node = of;
                count = 0;
            }
            count += entries;
        }

        private void flushRun() {
            if (node == null) {
                return;
            }
            byte[] name = names.computeIfAbsent(node, id -> id.value().getBytes(StandardCharsets.US_ASCII));
            if (buffered + name.length + 22 > buffer.length) {
                drain();
            }
            System.arraycopy(name, 0, buffer, buffered, name.length);
            buffered += name.length;
            buffer[buffered++] = ' ';
            int digits = 1;
            for (long rest = count / 10; rest > 0; rest /= 10) {
                digits++;
            }
            long left = count;
            for (int i = buffered + digits - 1; i >= buffered; i--) {
                buffer[i] = (byte) ('0' + left % 10);
                left /= 10;
            }
            buffered += digits;
            buffer[buffered++] = '\n';
            node = null;
        }

        private void drain() {
            try {
                out.write(buffer, 0, buffered);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + partial + ": " + e.getMessage(), e);
            }
            buffered = 0;
        }

        /** Writes the last run and puts the file in place: the run is over. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            flushRun();
            drain();
            try {
                out.close();
                try {
                    Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        /** Leaves no order: the run did not end (its trace is merged by Lamport clock). */
        public void abandon() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                out.close();
                Files.deleteIfExists(partial);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove " + partial + ": " + e.getMessage(), e);
            }
        }
    }
}
