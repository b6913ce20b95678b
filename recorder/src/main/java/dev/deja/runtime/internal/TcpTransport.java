package dev.deja.runtime.internal;

import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.FaultModel;
import dev.deja.trace.Payload;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Real TCP on loopback between node processes: one listening socket per process, one outbound connection
 * per destination with its own sender thread, so the handler thread never waits for the network.
 *
 * <p>Delivery is best effort, like the datagram model the protocols assume: a message to a process that is
 * down or unreachable is dropped after a short reconnect attempt. Fault injection (drop, duplicate, extra delay,
 * partitions) is applied here on the sending side: it is a property of the network, not an input the node
 * observes, and a lost message shows in the trace as a send without a matching receive. Each message's fate is
 * {@link FaultModel#fateOf} of the cluster's fault seed, the two ends and the message id, so it does not depend on
 * thread timing; partitions are timed from the start of the workload, which the deployment announces in a file
 * (before it is known, no partition is in force).
 */
public final class TcpTransport implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MILLIS = 500;

    private final NodeId self;
    private final ClusterSpec cluster;
    private final Consumer<Frame> inbound;
    private final ScheduledExecutorService scheduler;
    private final ServerSocket server;
    private final Map<NodeId, Outbound> outbound = new ConcurrentHashMap<>();
    private final FaultModel faults;
    private final Optional<Path> workloadStartFile;
    private final long createdMillis = System.currentTimeMillis();
    private volatile long workloadStartMillis = -1;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    /**
     * Binds this process's address; {@code inbound} is called on reader threads for every frame received.
     * {@code workloadStartFile} is where the deployment writes the wall-clock milliseconds at which its workload
     * began, the origin of partition times; without it they are timed from this transport's creation.
     */
    public TcpTransport(NodeId self, ClusterSpec cluster, Consumer<Frame> inbound, ScheduledExecutorService scheduler,
                        Optional<Path> workloadStartFile) throws IOException {
        this.self = self;
        this.faults = cluster.faults();
        this.workloadStartFile = workloadStartFile;
        this.cluster = cluster;
        this.inbound = inbound;
        this.scheduler = scheduler;
        InetSocketAddress address = cluster.member(self).socketAddress();
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        try {
            server.bind(address);
        } catch (IOException e) {
            throw new IOException(self + " cannot listen on " + address + ": " + e.getMessage(), e);
        }
        Thread.ofPlatform().daemon().name("deja-accept-" + self).start(this::acceptLoop);
    }

    /** Messages lost to injected drops or unreachable destinations. */
    public long droppedCount() {
        return dropped.get();
    }

    /** Queues a message for {@code to}, applying injected faults. Never blocks. */
    public void send(NodeId to, long senderLamport, long messageId, Payload message) {
        if (closed) {
            return;
        }
        Frame frame = new Frame(self, senderLamport, messageId, message);
        Outbound connection = outbound.computeIfAbsent(to, Outbound::new);
        if (!faults.affectsMessages()) {
            connection.queue.add(frame);
            return;
        }
        FaultModel.MessageFate fate = faults.fateOf(self, to, messageId);
        if (fate.dropped() || partitioned(to)) {
            dropped.incrementAndGet();
            return;
        }
        for (int copy = 0; copy < (fate.duplicated() ? 2 : 1); copy++) {
            if (fate.delayMillis() == 0) {
                connection.queue.add(frame);
            } else {
                scheduler.schedule(() -> connection.queue.add(frame), fate.delayMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private boolean partitioned(NodeId to) {
        if (faults.partitions().isEmpty()) {
            return false;
        }
        long origin = workloadStartMillis();
        return origin >= 0 && faults.partitioned(self, to, System.currentTimeMillis() - origin);
    }

    /** The workload's start, once the deployment has announced it; -1 before. */
    private long workloadStartMillis() {
        if (workloadStartMillis >= 0) {
            return workloadStartMillis;
        }
        if (workloadStartFile.isEmpty()) {
            return workloadStartMillis = createdMillis;
        }
        try {
            String text = Files.readString(workloadStartFile.get()).strip();
            if (!text.isEmpty()) {
                workloadStartMillis = Long.parseLong(text);
            }
        } catch (IOException | NumberFormatException e) {
            // not written yet (or half written): no partition before the workload starts
        }
        return workloadStartMillis;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                Thread.ofVirtual().name("deja-read-" + self).start(() -> readLoop(socket));
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("[" + self + "] accept failed: " + e.getMessage());
                }
            }
        }
    }

    private void readLoop(Socket socket) {
        try (socket; DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()))) {
            while (!closed) {
                inbound.accept(Frame.readFrom(in));
            }
        } catch (EOFException | SocketException e) {
            // the peer closed the connection or died: nothing to report
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                System.err.println("[" + self + "] dropping a connection after a bad frame: " + e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        outbound.values().forEach(Outbound::close);
    }

    /** The connection to one destination, and the sender thread that drains its queue. */
    private final class Outbound {
        private final NodeId to;
        private final LinkedBlockingQueue<Frame> queue = new LinkedBlockingQueue<>();
        private final Thread sender;
        private Socket socket;
        private DataOutputStream out;

        Outbound(NodeId to) {
            this.to = to;
            this.sender = Thread.ofVirtual().name("deja-send-" + self + "-" + to).start(this::sendLoop);
        }

        private void sendLoop() {
            while (!closed) {
                Frame frame;
                try {
                    frame = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (!write(frame) && !write(frame)) { // one reconnect attempt, then the message is lost
                    dropped.incrementAndGet();
                }
            }
        }

        private boolean write(Frame frame) {
            try {
                if (out == null) {
                    socket = new Socket();
                    socket.setTcpNoDelay(true);
                    socket.connect(cluster.member(to).socketAddress(), CONNECT_TIMEOUT_MILLIS);
                    out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                }
                frame.writeTo(out);
                if (queue.isEmpty()) {
                    out.flush();
                }
                return true;
            } catch (IOException e) {
                closeSocket();
                return false;
            }
        }

        private void closeSocket() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // already broken
            }
            socket = null;
            out = null;
        }

        void close() {
            sender.interrupt();
            closeSocket();
        }
    }
}
