package dev.deja.runtime;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.runtime.internal.FileStorage;
import dev.deja.runtime.internal.TcpTransport;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.TraceWriteException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One node (or client) of a loopback deployment, running in the current process: real TCP, real timers,
 * the real clock, real randomness, storage in a directory, and recording when a trace directory is given.
 *
 * <p>Threading: one handler thread runs every handler, one at a time, from a queue that the network reader
 * threads and the timer thread fill. While recording, it runs the events that are already queued back to back (up to
 * {@value #CALLS_PER_WRITE} handler calls), writes their entries to the log as one document and only then lets the
 * messages they sent leave: one write to the queue for several calls, a group commit. {@link #stop()} may be called
 * from any thread (a shutdown hook, say): it lets the current handler finish, then closes the network and completes
 * the recording.
 */
public final class LiveNode implements AutoCloseable {
    /**
     * Where to run and whether to record.
     *
     * @param workloadStartFile where the deployment announces when its workload began (the origin of partition
     *                          times); empty times partitions from this node's start
     */
    public record Options(Path storageDirectory, Optional<Path> recordTo, PrintStream logOutput,
                          Optional<Path> workloadStartFile) {
        /** Options without a workload start file. */
        public Options(Path storageDirectory, Optional<Path> recordTo, PrintStream logOutput) {
            this(storageDirectory, recordTo, logOutput, Optional.empty());
        }
    }

    private static final String INCARNATION_FILE = "incarnation";
    /**
     * The most handler calls whose entries are written together. More calls per write cost less CPU per call, but
     * their messages wait for the last of them. Measured on the benchmark's key-value cluster (interleaved rounds,
     * recording each way side by side): with 8, the node CPU time per operation at a fixed rate was lower than with
     * one call per write in 7 of 7 rounds of each of two runs (recording's extra CPU 3.8 → 2.5 and 3.4 → 2.1 µs per
     * operation), and the throughput at full speed higher in 6 of 7; 4 and 16 came close; with 64 the throughput was
     * lower, since messages wait for the last call of the group.
     */
    static final int CALLS_PER_WRITE = 8;

    private final NodeId self;
    private final Node node;
    private final NodeRunner runner;
    private final LivePlatform platform;
    private final TcpTransport transport;
    private final NodeLogWriter writer;
    private final ScheduledExecutorService scheduler;
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final Thread handlerThread;
    // Counted down once the first handler calls, the node's start among them, are written (or run, not recording).
    private final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    // Set by the handler thread once the node's start ran (in the group being written).
    private boolean startRan;
    private volatile TraceWriteException recordingFailure;
    private final PrintStream logOutput;
    private volatile boolean stopping;
    private boolean closed;

    private LiveNode(NodeId self, ClusterSpec cluster, Options options) throws IOException {
        this.self = self;
        this.logOutput = options.logOutput();
        ClusterSpec.Member member = cluster.member(self);
        this.node = instantiate(member.nodeClass());
        MessageCodec codec = new MessageCodec(node.getClass().getClassLoader());
        FileStorage storage = new FileStorage(options.storageDirectory());
        int incarnation = readIncarnation(options.storageDirectory()) + 1;
        long initialLamport = 0;
        long firstSeq = 0;
        int crashed = 0;
        if (options.recordTo().isPresent()) {
            writer = NodeLogWriter.open(options.recordTo().get(), self, member.nodeClass(), codeVersion(node),
                    incarnation, System.currentTimeMillis());
            incarnation = writer.incarnation();
            initialLamport = writer.lastLamportBefore();
            firstSeq = writer.nextSeq();
            crashed = writer.previousIncarnationCrashed() ? incarnation - 1 : 0;
        } else {
            writer = null;
        }
        writeIncarnation(options.storageDirectory(), incarnation);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "deja-timers-" + self);
            t.setDaemon(true);
            return t;
        });
        this.platform = new LivePlatform(self, storage, Set.copyOf(cluster.allIds()), writer != null,
                cluster.faults().clockSkewOf(self), tasks, scheduler, this::log);
        this.runner = new NodeRunner(node, new NodeRunner.Setup(self, cluster.nodes().containsKey(self)
                ? cluster.peersOf(self) : cluster.nodes().keySet().stream().sorted().toList(),
                member.args(), incarnation, initialLamport, firstSeq, crashed), platform, codec, writer);
        platform.runner = runner;
        this.transport = new TcpTransport(self, cluster, frame -> tasks.add(() -> runner.deliver(frame.from(),
                frame.senderLamport(), frame.messageId(), frame.message())), scheduler,
                options.workloadStartFile());
        platform.transport = transport;
        this.handlerThread = Thread.ofPlatform().name("deja-handler-" + self).unstarted(this::handlerLoop);
    }

    /**
     * Starts {@code self} from {@code cluster}: binds its address, opens its recording (if any) and calls
     * {@code onStart} on the handler thread.
     */
    public static LiveNode start(NodeId self, ClusterSpec cluster, Options options) throws IOException {
        LiveNode live = new LiveNode(self, cluster, options);
        live.tasks.add(() -> {
            try {
                live.runner.start();
            } finally {
                // A start that failed is logged by the handler loop, and the node goes on: it is up all the same.
                live.startRan = true;
            }
        });
        live.handlerThread.start();
        return live;
    }

    /** The node object (for a workload driver's {@code finished()}). */
    public Node node() {
        return node;
    }

    public int incarnation() {
        return runner.incarnation();
    }

    private void handlerLoop() {
        while (!stopping) {
            Runnable task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                return;
            }
            if (stopping) {
                return;
            }
            if (writer != null) {
                writer.beginGroup();
            }
            int calls = 0;
            do {
                int heldBefore = platform.heldCount();
                try {
                    task.run();
                } catch (TraceWriteException e) {
                    stopRecordingFailed(e, heldBefore);
                    return;
                } catch (RuntimeException e) {
                    // The messages of a handler call that failed are not known to be recorded, so they never leave.
                    int dropped = platform.dropHeldSince(heldBefore);
                    log(runner.incarnation(), "dropped an event the runtime could not dispatch" + (dropped == 0 ? ""
                            : " and the " + dropped + " messages it sent") + ": " + e);
                }
                calls++;
            } while (calls < CALLS_PER_WRITE && !stopping && (task = tasks.poll()) != null);
            if (writer != null) {
                try {
                    writer.endGroup();
                } catch (TraceWriteException e) {
                    stopRecordingFailed(e, 0);
                    return;
                }
            }
            platform.releaseHeld();
            if (startRan) {
                started.countDown();
            }
        }
    }

    /**
     * The log cannot be written (a full disk): the node stops at once, with its messages not yet known to be
     * recorded dropped, so that it never runs on unrecorded; its log keeps what was written.
     */
    private void stopRecordingFailed(TraceWriteException e, int heldBefore) {
        recordingFailure = e;
        stopping = true;
        platform.dropHeldSince(heldBefore);
        log(runner.incarnation(), e.getMessage());
        transport.close();
        scheduler.shutdownNow();
    }

    /** Why recording stopped the node, if it did (see {@link #awaitHandlerEnd}). */
    public Optional<TraceWriteException> recordingFailure() {
        return Optional.ofNullable(recordingFailure);
    }

    /** Waits until the node's handler thread ends: after {@link #stop()}, or when recording failed. */
    public void awaitHandlerEnd() throws InterruptedException {
        handlerThread.join();
    }

    /**
     * Waits until the node's start has run and, when recording, is in its log, or until the handler thread ended (its
     * recording failed). A launcher that kills a node once it says it listens then never kills it before its start
     * is recorded: on a loaded machine the handler thread had not run 600 ms after the node listened.
     */
    public void awaitStarted() throws InterruptedException {
        while (!started.await(50, java.util.concurrent.TimeUnit.MILLISECONDS) && handlerThread.isAlive()) {
            // the handler thread runs the start
        }
    }

    /** Stops after the current handler, closes the network and completes the recording. Idempotent. */
    public synchronized void stop() {
        if (closed) {
            return;
        }
        closed = true;
        stopping = true;
        tasks.add(() -> { }); // wake the handler thread if it is waiting
        try {
            // The network and the timers stay up until the current handler has finished: a handler cut short by a
            // closed transport would leave a log that ends inside a handler, which replay cannot reproduce.
            handlerThread.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        transport.close();
        scheduler.shutdownNow();
        if (handlerThread.isAlive()) {
            log(runner.incarnation(), "a handler did not finish within 10 s; the recording stays incomplete");
            return;
        }
        if (writer != null) {
            writer.close(System.currentTimeMillis());
        }
    }

    @Override
    public void close() {
        stop();
    }

    private void log(int incarnation, String line) {
        logOutput.println(Instant.now() + " [" + self + "/" + incarnation + "] " + line);
    }

    private static Node instantiate(String className) {
        try {
            Class<?> type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
            if (!Node.class.isAssignableFrom(type)) {
                throw new IllegalArgumentException(className + " does not implement " + Node.class.getName());
            }
            return (Node) type.getConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("node class " + className + " is not on the classpath", e);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("node class " + className + " has no public no-argument constructor", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot instantiate node class " + className + ": " + e, e);
        }
    }

    /** The jar's version with digests of the class and its jar, so that a replay can tell other code. */
    private static String codeVersion(Node node) {
        return dev.deja.trace.CodeFingerprint.of(node.getClass());
    }

    private static int readIncarnation(Path storage) {
        try {
            Path file = storage.resolve(INCARNATION_FILE);
            return Files.exists(file) ? Integer.parseInt(Files.readString(file).trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("unreadable incarnation counter in " + storage + ": " + e.getMessage(), e);
        }
    }

    private static void writeIncarnation(Path storage, int incarnation) {
        try {
            Files.createDirectories(storage);
            Path temporary = storage.resolve(INCARNATION_FILE + ".tmp");
            Files.writeString(temporary, Integer.toString(incarnation), StandardCharsets.UTF_8);
            Files.move(temporary, storage.resolve(INCARNATION_FILE), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the incarnation counter in " + storage, e);
        }
    }
}
