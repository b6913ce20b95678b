package dev.deja.daemon;

import dev.deja.check.Checker;
import dev.deja.cli.Interrupts;
import dev.deja.cli.CheckCommand;
import dev.deja.cli.Progress;
import dev.deja.main.DejaCli;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The warm engine: a JVM that keeps its Python engine, its compiled code and a Python context between commands,
 * and runs the command lines {@link DaemonClient} hands it, one at a time, exactly as a new JVM would run them
 * (same working directory and environment, standard output and error relayed byte for byte, same exit status).
 *
 * <p>Started by the first client that finds none; stops after {@link #DEFAULT_IDLE} without a command (the
 * environment variable {@code DEJA_DAEMON_IDLE_SECONDS} changes it), on {@code deja daemon stop}, when a client of
 * another build, working directory or environment comes (which then starts its own), and after a command that
 * ended with an error a JVM does not recover from. A client's Ctrl-C reaches the command through {@link Interrupts}
 * (explore stops cleanly and reports). A command whose client went away (Ctrl-C) and that still runs
 * after {@link #ABANDONED_GRACE} ends the process, so that a script looping where no predicate timeout applies
 * cannot keep it busy for ever; the next command starts a fresh one. A Python context that a crash or a timeout
 * left unusable is closed by the checker, and the next check gets a fresh one.
 *
 * <p>Threading: one thread accepts connections and one thread serves each; commands run one at a time (a client
 * that finds the engine busy runs its command in a new JVM rather than wait), since a command prints through
 * {@link System#out} and {@link System#err}, which the server points at the running command's client.
 */
public final class DaemonServer {
    static final Duration DEFAULT_IDLE = Duration.ofMinutes(30);
    static final Duration ABANDONED_GRACE = Duration.ofSeconds(10);

    /** The process's own standard error (the log), captured before any command's streams replace it. */
    private static final PrintStream LOG = System.err;

    private final DaemonLocation location;
    private final String build;
    private final String workingDirectory;
    private final Map<String, String> environment;
    private final UserPrincipal owner;
    private final Duration idle;
    private final Runnable exit;
    private final ReentrantLock running = new ReentrantLock();
    private final Instant startedAt = Instant.now();
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong runs = new AtomicLong();
    private volatile long lastActiveNanos = System.nanoTime();
    private volatile boolean stopping;
    private ServerSocketChannel server;
    private FileChannel lockChannel;
    private FileLock lock;
    private Thread warmUp;
    // Counted down once the engine that checks use first (the interpreted one) is ready; commands wait only for that.
    private final java.util.concurrent.CountDownLatch checksReady = new java.util.concurrent.CountDownLatch(1);

    /**
     * A server for the location, serving clients of build {@code build} in {@code workingDirectory} with
     * {@code environment} (as {@link DaemonClient#environment} chooses it) that connect as {@code owner};
     * {@code exit} ends the process once the server stopped.
     */
    DaemonServer(DaemonLocation location, String build, String workingDirectory, Map<String, String> environment,
                 UserPrincipal owner, Duration idle, Runnable exit) {
        this.location = location;
        this.build = build;
        this.workingDirectory = workingDirectory;
        this.environment = Map.copyOf(environment);
        this.owner = owner;
        this.idle = idle;
        this.exit = exit;
    }

    public static void main(String[] args) throws IOException {
        ignoreTerminalSignals();
        Path home = Path.of(System.getProperty("deja.home", ""));
        DaemonServer server = new DaemonServer(DaemonLocation.of(home),
                BuildId.of(home, System.getProperty("java.class.path")), System.getProperty("user.dir"),
                DaemonClient.environment(System.getenv()), DaemonLocation.currentUser(), idle(),
                () -> System.exit(0));
        if (!server.bind()) {
            log("another warm engine serves " + server.location.directory() + "; this one ends");
            return;
        }
        server.startWarmUp();
        server.serve();
    }

    private static Duration idle() {
        String seconds = System.getenv("DEJA_DAEMON_IDLE_SECONDS");
        if (seconds != null && seconds.matches("\\d{1,9}")) {
            return Duration.ofSeconds(Long.parseLong(seconds));
        }
        return DEFAULT_IDLE;
    }

    /** Ctrl-C and hang-ups of the terminal that started the first client are the client's, not this process's. */
    @SuppressWarnings("removal")
    private static void ignoreTerminalSignals() {
        for (String name : new String[] {"INT", "HUP"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), sun.misc.SignalHandler.SIG_IGN);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // Not on this platform: the client started this process in a session of its own anyway.
            }
        }
    }

    /**
     * Takes the location's lock (waiting up to ten seconds for a server that is stopping) and listens on its socket;
     * false if another server holds the lock.
     */
    boolean bind() throws IOException {
        location.ensurePrivate();
        lockChannel = FileChannel.open(location.lock(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((lock = lockChannel.tryLock()) == null) {
            if (System.nanoTime() > deadline) {
                lockChannel.close();
                return false;
            }
            sleep(50);
        }
        Files.deleteIfExists(location.socket());
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(location.socket()));
        Files.setPosixFilePermissions(location.socket(), PosixFilePermissions.fromString("rw-------"));
        Files.writeString(location.pidFile(), Long.toString(ProcessHandle.current().pid()));
        log("listening on " + location.socket() + " for " + workingDirectory + " (build " + build + ")");
        Thread.ofPlatform().daemon().name("deja-daemon-idle").start(this::watchIdle);
        return true;
    }

    /**
     * Prepares the Python engines and a context of each in the background: first the one checks start on (interpreted,
     * see {@code CheckCommand.checkOnceInterpretedFirst}), for which the first command waits, then the JIT's (explore,
     * and checks that start again with it).
     */
    void startWarmUp() {
        warmUp = Thread.ofPlatform().daemon().name("deja-daemon-warm-up").start(() -> {
            try {
                warm("interpreted", Checker::warmUpInterpreted);
            } finally {
                checksReady.countDown();
            }
            warm("with the JIT", Checker::warmUp);
        });
    }

    private static void warm(String which, Runnable warmUp) {
        long start = System.nanoTime();
        try {
            warmUp.run();
            log(String.format(Locale.ROOT, "Python engine (%s) ready in %.1f s", which, (System.nanoTime() - start) / 1e9));
        } catch (RuntimeException e) {
            log("warm-up (" + which + ") failed (commands still run): " + e);
        }
    }

    /** Accepts connections until stopped. */
    void serve() {
        while (!stopping) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (ClosedChannelException e) {
                break;
            } catch (IOException e) {
                log("accept failed: " + e.getMessage());
                continue;
            }
            Thread.ofPlatform().daemon().name("deja-daemon-connection").start(() -> handle(channel));
        }
    }

    private void handle(SocketChannel channel) {
        try (channel) {
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ChannelStreams.out(channel)));
            Frames frames = new Frames(out);
            if (!peerAllowed(channel, frames)) {
                return;
            }
            InputStream in = ChannelStreams.in(channel);
            // Unbuffered: no read-ahead past the request, since the monitor reads the rest of the stream directly.
            Protocol.Request request = Protocol.Request.read(new DataInputStream(in));
            switch (request.kind()) {
                case STATUS -> {
                    frames.write(Protocol.OUT, status().getBytes(StandardCharsets.UTF_8));
                    frames.exit(0);
                }
                case STOP -> {
                    frames.write(Protocol.OUT, ("deja daemon: stopping the warm engine (pid " + ProcessHandle.current().pid()
                            + ")\n").getBytes(StandardCharsets.UTF_8));
                    frames.exit(0);
                    stop("asked to stop");
                }
                case RUN -> run(request, channel, frames);
            }
        } catch (IOException | RuntimeException e) {
            log("a connection failed: " + e);
        }
    }

    /** Whether the peer is this server's user; if not, says so to it. */
    private boolean peerAllowed(SocketChannel channel, Frames frames) throws IOException {
        UnixDomainPrincipal peer;
        try {
            peer = channel.getOption(ExtendedSocketOptions.SO_PEERCRED);
        } catch (UnsupportedOperationException e) {
            // No peer credentials on this platform: the private directory alone keeps other users out.
            return true;
        }
        if (peer.user().equals(owner)) {
            return true;
        }
        log("refused a connection from user " + peer.user().getName());
        frames.write(Protocol.REFUSED, ("the warm engine at " + location.socket() + " belongs to user " + owner.getName()
                + " and refuses user " + peer.user().getName()).getBytes(StandardCharsets.UTF_8));
        return false;
    }

    private void run(Protocol.Request request, SocketChannel channel, Frames frames) throws IOException {
        lastActiveNanos = System.nanoTime();
        if (!build.equals(request.build())) {
            frames.declined(Protocol.Declined.STALE);
            stop("a client of another build came");
            return;
        }
        if (stopping) {
            frames.declined(Protocol.Declined.STOPPING);
            return;
        }
        boolean here = workingDirectory.equals(request.workingDirectory()) && environment.equals(request.environment());
        if (!running.tryLock()) {
            frames.declined(Protocol.Declined.BUSY);
            return;
        }
        try {
            if (!here) {
                frames.declined(Protocol.Declined.ELSEWHERE);
                stop("a client from " + request.workingDirectory() + " or another environment came");
                return;
            }
            awaitWarmUp();
            long run = runs.incrementAndGet();
            Interrupts.relayStarted(); // before the monitor, which may deliver the client's Ctrl-C at once
            Thread.ofPlatform().daemon().name("deja-daemon-client-monitor").start(() -> monitor(channel, frames, run));
            Result result = execute(request, frames);
            frames.exit(result.status());
            served.incrementAndGet();
            if (result.fatal()) {
                stop("the last command ended with an error a JVM does not recover from");
            }
        } finally {
            Interrupts.relayEnded();
            runs.incrementAndGet();
            lastActiveNanos = System.nanoTime();
            running.unlock();
        }
    }

    /** A command's exit status, and whether the process should end after it. */
    record Result(int status, boolean fatal) {
    }

    /** Runs the command line with the client's streams as standard output and error. */
    static Result execute(Protocol.Request request, Frames frames) {
        PrintStream out = new PrintStream(new BufferedOutputStream(frames.stream(Protocol.OUT), 8192), true,
                charset(request.stdoutEncoding()));
        PrintStream err = new PrintStream(new BufferedOutputStream(frames.stream(Protocol.ERR), 8192), true,
                charset(request.stderrEncoding()));
        PrintStream previousOut = System.out;
        PrintStream previousErr = System.err;
        String previousAnsi = System.getProperty("picocli.ansi");
        System.setOut(out);
        System.setErr(err);
        // picocli colours its messages, and the progress is a bar, when the console is a terminal: the client's
        // console, not this process's.
        System.setProperty("picocli.ansi", Boolean.toString(request.terminal()));
        System.setProperty(Progress.CLIENT_TERMINAL, Boolean.toString(request.terminal()));
        // A check starts its predicates interpreted here, and again with the JIT if they turn out heavy (see
        // CheckCommand.checkOnceInterpretedFirst).
        System.setProperty(CheckCommand.WARM_ENGINE_PROPERTY, "true");
        try {
            String[] arguments = request.arguments().toArray(String[]::new);
            return new Result(DejaCli.commandLine(arguments).execute(arguments), false);
        } catch (Throwable t) {
            // What would end a JVM of its own: printed as the JVM prints it, with the JVM's exit status.
            err.print("Exception in thread \"main\" ");
            t.printStackTrace(err);
            return new Result(1, true);
        } finally {
            out.flush();
            err.flush();
            System.setOut(previousOut);
            System.setErr(previousErr);
            System.clearProperty(Progress.CLIENT_TERMINAL);
            System.clearProperty(CheckCommand.WARM_ENGINE_PROPERTY);
            if (previousAnsi == null) {
                System.clearProperty("picocli.ansi");
            } else {
                System.setProperty("picocli.ansi", previousAnsi);
            }
        }
    }

    private static Charset charset(String name) {
        try {
            return Charset.forName(name);
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }

    /**
     * Watches the client of run {@code run}: once it went away, what it would still print is dropped, and if the
     * command still runs after {@link #ABANDONED_GRACE}, the process ends.
     */
    private void monitor(SocketChannel channel, Frames frames, long run) {
        DataInputStream in = new DataInputStream(ChannelStreams.in(channel));
        try {
            Protocol.Frame frame;
            while ((frame = Protocol.Frame.read(in)) != null) {
                // After its request a client sends only interrupts (Ctrl-C), for the command that runs.
                if (frame.type() == Protocol.INTERRUPT && runs.get() == run) {
                    Interrupts.deliver();
                }
            }
        } catch (IOException e) {
            // Gone as well.
        }
        if (runs.get() != run) {
            return; // the command ended first (the client closed after its exit frame)
        }
        frames.gone();
        // A client that went away (a second Ctrl-C, a kill) stops a command that stops on Ctrl-C, as it would have
        // stopped with its JVM; what it still prints is dropped.
        Interrupts.deliver();
        long deadline = System.nanoTime() + ABANDONED_GRACE.toNanos();
        while (System.nanoTime() < deadline) {
            if (runs.get() != run) {
                return;
            }
            sleep(50);
        }
        if (runs.get() == run) {
            log("a command still ran " + ABANDONED_GRACE.toSeconds() + " s after its client went away; ending the process");
            cleanUp();
            Runtime.getRuntime().halt(3);
        }
    }

    private void awaitWarmUp() {
        if (warmUp != null) {
            try {
                checksReady.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String status() {
        long idleSeconds = Duration.ofNanos(System.nanoTime() - lastActiveNanos).toSeconds();
        return String.format(Locale.ROOT, """
                deja daemon: running, pid %d, since %s (%d command(s) served)
                  %s; stops after %d min without a command
                  working directory: %s
                  socket: %s (log: %s)
                """, ProcessHandle.current().pid(), startedAt, served.get(),
                running.isLocked() ? "running a command" : "idle for " + idleSeconds + " s", idle.toMinutes(),
                workingDirectory, location.socket(), location.log());
    }

    private void watchIdle() {
        long poll = Math.max(100, Math.min(idle.toMillis() / 4, 10_000));
        while (!stopping) {
            sleep(poll);
            if (!running.isLocked() && System.nanoTime() - lastActiveNanos > idle.toNanos()) {
                stop("idle for " + idle.toSeconds() + " s");
            }
        }
    }

    /** Stops accepting, waits for the running command, removes the socket and ends the process. */
    void stop(String why) {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
        }
        log("stopping: " + why);
        Thread.ofPlatform().name("deja-daemon-stop").start(() -> {
            running.lock();
            try {
                cleanUp();
            } finally {
                running.unlock();
            }
            exit.run();
        });
    }

    private void cleanUp() {
        try {
            server.close();
            Files.deleteIfExists(location.socket());
            Files.deleteIfExists(location.pidFile());
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            log("cleaning up: " + e.getMessage());
        }
    }

    /** Whether the server has stopped accepting commands. */
    boolean stopping() {
        return stopping;
    }

    private static void log(String message) {
        LOG.println(Instant.now() + " deja daemon: " + message);
        LOG.flush();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The frames of one connection, written by the command's streams and the server, one at a time. */
    static final class Frames {
        private static final int MAX_FRAME = 64 * 1024;
        private final DataOutputStream out;
        private volatile boolean gone;

        Frames(DataOutputStream out) {
            this.out = out;
        }

        synchronized void write(byte type, byte[] bytes) throws IOException {
            write(type, bytes, 0, bytes.length);
        }

        synchronized void write(byte type, byte[] bytes, int offset, int length) throws IOException {
            if (gone) {
                return;
            }
            do {
                int chunk = Math.min(length, MAX_FRAME);
                Protocol.writeFrame(out, type, bytes, offset, chunk);
                offset += chunk;
                length -= chunk;
            } while (length > 0);
            out.flush();
        }

        synchronized void exit(int status) throws IOException {
            write(Protocol.EXIT, new byte[] {(byte) (status >>> 24), (byte) (status >>> 16), (byte) (status >>> 8),
                    (byte) status});
        }

        synchronized void declined(Protocol.Declined reason) throws IOException {
            write(Protocol.DECLINED, reason.name().getBytes(StandardCharsets.UTF_8));
        }

        /** The client went away: what is still written is dropped. */
        void gone() {
            gone = true;
        }

        /** A stream writing {@code type} frames; a write the client cannot take marks it gone. */
        OutputStream stream(byte type) {
            return new OutputStream() {
                @Override
                public void write(int b) {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] bytes, int offset, int length) {
                    try {
                        Frames.this.write(type, bytes, offset, length);
                    } catch (IOException e) {
                        gone();
                    }
                }
            };
        }
    }
}
