package dev.deja.daemon;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Console;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The client of the warm engine, which the launcher runs for {@code deja check}, {@code deja sql},
 * {@code deja view --png} and {@code deja explore}: hands the command line to this user's server (starting one if none runs), relays what
 * the command prints, and exits with its status. When the warm engine cannot or should not run the command, it
 * exits with {@link #RUN_COLD}, and the launcher runs the command in a new JVM as usual.
 *
 * <p>Uses the JDK only (no library is on its class path), so that its JVM starts in a fraction of the time the
 * full command line takes.
 */
public final class DaemonClient {
    /** The exit status that tells the launcher to run the command in a new JVM instead. */
    public static final int RUN_COLD = 251;

    /**
     * The exit status that tells the launcher that no warm engine runs: it runs the command in a new JVM and starts one
     * once the command ended (a client with {@value #START_ONLY_PROPERTY}). Answered instead of starting the engine and
     * waiting for it when the launcher sets {@value #START_AFTER_PROPERTY}: a first check waited 15 s for an engine to
     * start and check with a cold JIT, and takes 3-5 s in a new JVM on its own.
     */
    public static final int RUN_COLD_THEN_START = 252;

    /** The system property by which the launcher asks for {@link #RUN_COLD_THEN_START} rather than a start. */
    public static final String START_AFTER_PROPERTY = "deja.daemon.startAfter";

    /** The system property that makes this client only start the warm engine, if none runs, and exit 0 once it listens. */
    public static final String START_ONLY_PROPERTY = "deja.daemon.startOnly";

    /** The exit status when the warm engine stopped in the middle of a command (an internal error). */
    static final int ENGINE_LOST = 3;

    /** How long a new server may take to listen (a JVM start on a busy machine). */
    private static final long START_MILLIS = 120_000;

    /** Commands the warm engine runs. */
    private static final Set<String> COMMANDS = Set.of("check", "sql", "view", "explore");

    /**
     * Commands that stop cleanly on Ctrl-C and report what they did: the client passes the first Ctrl-C on to the
     * engine and ends at the second (exit 130), as such a command does in a JVM of its own. Other commands end with
     * the client at the first Ctrl-C, as they do in a JVM of their own.
     */
    private static final Set<String> INTERRUPTIBLE = Set.of("explore");

    /** Options after which the command runs in a new JVM: long-lived, interactive, or told so. */
    private static final Set<String> COLD_OPTIONS = Set.of("--no-daemon", "--watch", "-h", "--help", "-V", "--version");

    /**
     * Environment variables that can change what a command prints or does; a server serves only clients that have
     * the same values as the client that started it (with every {@code DEJA_} variable).
     */
    private static final List<String> ENVIRONMENT = List.of("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
            "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "TZ", "TERM", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS",
            "HOME", "TMPDIR", "DISPLAY", "WAYLAND_DISPLAY", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS");

    /** The launcher's JVM flags for a server, one a line; not part of the environment compared. */
    static final String FLAGS_VARIABLE = "DEJA_DAEMON_FLAGS";
    /** The launcher's class path for a server; not part of the environment compared. */
    static final String CLASSPATH_VARIABLE = "DEJA_DAEMON_CLASSPATH";
    /**
     * Whether the launcher waits for a server's start rather than run the command in a new JVM meanwhile; it changes
     * nothing a command prints or does, so it is not compared either: with it, a client once run with
     * {@code DEJA_DAEMON_WAIT=1} made the next one without it stop the server and start another, running its command in
     * a new JVM beside that start.
     */
    static final String WAIT_VARIABLE = "DEJA_DAEMON_WAIT";

    private DaemonClient() {
    }

    public static void main(String[] args) {
        System.exit(Boolean.getBoolean(START_ONLY_PROPERTY) ? startOnly(home()) : run(home(), args));
    }

    /** Starts the warm engine of the installation at {@code home} unless one runs: 0 once one listens, else 1. */
    static int startOnly(Path home) {
        String classpath = System.getenv(CLASSPATH_VARIABLE);
        if (classpath == null) {
            return 1;
        }
        DaemonLocation location = DaemonLocation.of(home);
        SocketChannel channel = connect(location);
        if (channel == null) {
            channel = start(location, home, classpath);
        }
        closeQuietly(channel);
        return channel == null ? 1 : 0;
    }

    private static Path home() {
        String home = System.getProperty("deja.home");
        return home == null ? Path.of("").toAbsolutePath() : Path.of(home);
    }

    /** Runs {@code args} through the warm engine of the installation at {@code home}; its exit status, or RUN_COLD. */
    static int run(Path home, String[] args) {
        return run(home, args, System.getenv(CLASSPATH_VARIABLE), Boolean.getBoolean(START_AFTER_PROPERTY));
    }

    /**
     * {@link #run(Path, String[])} with the server's class path {@code classpath}; {@code startAfter}: answer
     * {@link #RUN_COLD_THEN_START} when no server listens, rather than start one.
     */
    static int run(Path home, String[] args, String classpath, boolean startAfter) {
        if (!eligible(args) || classpath == null) {
            return RUN_COLD;
        }
        DaemonLocation location = DaemonLocation.of(home);
        Protocol.Request request = request(Protocol.Kind.RUN, BuildId.of(home, classpath), Arrays.asList(args));
        boolean started = false;
        for (int attempt = 0; attempt < 3; attempt++) {
            SocketChannel channel = connect(location);
            if (channel == null) {
                if (started) {
                    return RUN_COLD;
                }
                if (startAfter) {
                    return RUN_COLD_THEN_START;
                }
                started = true;
                channel = start(location, home, classpath);
                if (channel == null) {
                    return RUN_COLD;
                }
            }
            Outcome outcome;
            try (Relay relay = INTERRUPTIBLE.contains(args[0]) ? Relay.interrupts(channel) : null) {
                outcome = exchange(channel, request, new FileOutputStream(FileDescriptor.out),
                        new FileOutputStream(FileDescriptor.err), relay == null ? () -> { } : relay::sent);
            }
            switch (outcome.kind()) {
                case EXIT:
                    return outcome.status();
                case REPLACED:
                    awaitGone(location);
                    started = false;
                    continue;
                case LOST:
                    System.err.println("deja: the warm engine stopped while running this command (its log: "
                            + location.log() + "); run it again, or with --no-daemon");
                    return ENGINE_LOST;
                default:
                    return RUN_COLD;
            }
        }
        return RUN_COLD;
    }

    /** Whether the warm engine may run this command line (else it runs in a new JVM). */
    static boolean eligible(String[] args) {
        if (args.length == 0 || !COMMANDS.contains(args[0])) {
            return false;
        }
        boolean png = false;
        boolean script = false;
        for (String argument : args) {
            if (COLD_OPTIONS.contains(argument) || argument.startsWith("--watch=")
                    || (argument.matches("-[A-Za-z]+") && (argument.contains("h") || argument.contains("V")))) {
                return false;
            }
            png |= argument.equals("--png") || argument.startsWith("--png=");
            script |= argument.equals("--script") || argument.startsWith("--script=");
        }
        // An explore without a script needs no Python: its work is the simulator's code, which runs 1.8 times faster
        // per step with C2, which a new JVM has and the engine (C1 alone, see the launcher) has not.
        return (!args[0].equals("view") || png) && (!args[0].equals("explore") || script);
    }

    static Protocol.Request request(Protocol.Kind kind, String build, List<String> args) {
        Console console = System.console();
        return new Protocol.Request(kind, build, System.getProperty("user.dir"), environment(System.getenv()),
                console != null && console.isTerminal(), encoding("stdout.encoding"), encoding("stderr.encoding"),
                List.copyOf(args));
    }

    private static String encoding(String property) {
        return System.getProperty(property, System.getProperty("native.encoding", "UTF-8"));
    }

    /** The variables of {@code all} that a server compares. */
    static Map<String, String> environment(Map<String, String> all) {
        Map<String, String> chosen = new TreeMap<>();
        all.forEach((name, value) -> {
            if (ENVIRONMENT.contains(name) || (name.startsWith("DEJA_") && !name.equals(FLAGS_VARIABLE)
                    && !name.equals(CLASSPATH_VARIABLE) && !name.equals(WAIT_VARIABLE))) {
                chosen.put(name, value);
            }
        });
        return chosen;
    }

    /** A connection to the server, or null if none listens (or its directory is not private). */
    static SocketChannel connect(DaemonLocation location) {
        if (!Files.isDirectory(location.directory())) {
            return null;
        }
        try {
            location.checkPrivate();
        } catch (IOException e) {
            System.err.println("deja: not using the warm engine: " + e.getMessage());
            return null;
        }
        if (!Files.exists(location.socket())) {
            return null;
        }
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(location.socket()));
            return channel;
        } catch (IOException e) {
            closeQuietly(channel);
            return null;
        }
    }

    /** What came of a request. */
    record Outcome(Kind kind, int status) {
        enum Kind { EXIT, REPLACED, COLD, LOST }
    }

    /** Sends {@code request} and relays the answer to {@code out} and {@code err}. */
    static Outcome exchange(SocketChannel channel, Protocol.Request request, OutputStream out, OutputStream err) {
        return exchange(channel, request, out, err, () -> { });
    }

    /** As {@link #exchange(SocketChannel, Protocol.Request, OutputStream, OutputStream)}; {@code sent} runs once the request is sent. */
    private static Outcome exchange(SocketChannel channel, Protocol.Request request, OutputStream out, OutputStream err,
                                    Runnable sent) {
        boolean relayed = false;
        boolean outOpen = true;
        try (channel) {
            DataOutputStream to = new DataOutputStream(new BufferedOutputStream(ChannelStreams.out(channel)));
            request.write(to);
            sent.run();
            DataInputStream from = new DataInputStream(new BufferedInputStream(ChannelStreams.in(channel)));
            while (true) {
                Protocol.Frame frame = Protocol.Frame.read(from);
                if (frame == null) {
                    return new Outcome(relayed ? Outcome.Kind.LOST : Outcome.Kind.COLD, 0);
                }
                switch (frame.type()) {
                    case Protocol.OUT -> {
                        relayed = true;
                        if (outOpen) {
                            try {
                                out.write(frame.bytes());
                            } catch (IOException e) {
                                // A closed pipe (| head): a JVM of its own would also go on, printing nothing more.
                                outOpen = false;
                            }
                        }
                    }
                    case Protocol.ERR -> {
                        relayed = true;
                        try {
                            err.write(frame.bytes());
                        } catch (IOException e) {
                            // As above.
                        }
                    }
                    case Protocol.EXIT -> {
                        flushQuietly(out);
                        flushQuietly(err);
                        return new Outcome(Outcome.Kind.EXIT, frame.status());
                    }
                    case Protocol.DECLINED -> {
                        Protocol.Declined reason = Protocol.Declined.valueOf(frame.text());
                        return new Outcome(reason == Protocol.Declined.BUSY ? Outcome.Kind.COLD : Outcome.Kind.REPLACED, 0);
                    }
                    case Protocol.REFUSED -> {
                        err.write(("deja: not using the warm engine: " + frame.text() + "\n").getBytes(StandardCharsets.UTF_8));
                        return new Outcome(Outcome.Kind.COLD, 0);
                    }
                    default -> throw new IOException("unknown frame type " + frame.type());
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return new Outcome(relayed ? Outcome.Kind.LOST : Outcome.Kind.COLD, 0);
        }
    }

    /**
     * Passes the terminal's Ctrl-C on to the engine while a command runs: the first one as an {@link Protocol#INTERRUPT}
     * frame, the second one ends the client at once with 130 (the engine then drops what the command still prints).
     */
    private static final class Relay implements AutoCloseable {
        private final sun.misc.Signal signal = new sun.misc.Signal("INT");
        private final sun.misc.SignalHandler previous;
        private final DataOutputStream to;
        // Guarded by this: an interrupt before the request went out is sent right after it.
        private boolean sent;
        private boolean pending;

        private Relay(SocketChannel channel) {
            java.util.concurrent.atomic.AtomicBoolean interrupted = new java.util.concurrent.atomic.AtomicBoolean();
            this.to = new DataOutputStream(ChannelStreams.out(channel));
            this.previous = sun.misc.Signal.handle(signal, caught -> {
                if (interrupted.getAndSet(true)) {
                    System.exit(130);
                }
                synchronized (this) {
                    if (sent) {
                        send();
                    } else {
                        pending = true;
                    }
                }
            });
        }

        /** The request went out: interrupts may follow. */
        synchronized void sent() {
            sent = true;
            if (pending) {
                send();
            }
        }

        private void send() {
            try {
                Protocol.writeFrame(to, Protocol.INTERRUPT, new byte[0], 0, 0);
                to.flush();
            } catch (IOException e) {
                System.exit(130); // the engine is gone: nothing to stop cleanly
            }
        }

        /** A relay for {@code channel}, or null where SIGINT cannot be caught (Ctrl-C then ends the client). */
        static Relay interrupts(SocketChannel channel) {
            try {
                return new Relay(channel);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                return null;
            }
        }

        @Override
        public void close() {
            sun.misc.Signal.handle(signal, previous);
        }
    }

    /**
     * Starts a server for this working directory and environment and connects to it; null (with a line saying why)
     * if it does not come up.
     */
    private static SocketChannel start(DaemonLocation location, Path home, String classpath) {
        Process process;
        try {
            location.ensurePrivate();
            List<String> command = new ArrayList<>();
            for (String setsid : new String[] {"/usr/bin/setsid", "/bin/setsid"}) {
                if (Files.isExecutable(Path.of(setsid))) {
                    // Its own session: the terminal's Ctrl-C and hang-up reach the client only.
                    command.add(setsid);
                    break;
                }
            }
            command.addAll(serverCommand(home, classpath));
            File log = location.log().toFile();
            process = new ProcessBuilder(command).directory(new File(System.getProperty("user.dir")))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            System.err.println("deja: could not start the warm engine (" + e.getMessage() + "); running without it");
            return null;
        }
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            SocketChannel channel = connect(location);
            if (channel != null) {
                return channel;
            }
            if (!process.isAlive() && process.exitValue() != 0) {
                break;
            }
            sleep(25);
        }
        System.err.println("deja: the warm engine did not start (its log: " + location.log() + "); running without it");
        return null;
    }

    /** The command that starts a server: this JDK, the launcher's flags, the installation's class path. */
    static List<String> serverCommand(Path home, String classpath) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String flags = System.getenv(FLAGS_VARIABLE);
        if (flags != null) {
            flags.lines().filter(line -> !line.isBlank()).forEach(command::add);
        } else {
            Path file = home.resolve("cli/target/classes/jvm.flags");
            if (Files.isRegularFile(file)) {
                command.addAll(Arrays.asList(Files.readString(file).strip().split("\\s+")));
            }
        }
        command.add("-Ddeja.home=" + home);
        String directory = System.getProperty("deja.daemon.dir");
        if (directory != null) {
            command.add("-Ddeja.daemon.dir=" + directory);
        }
        command.add("-cp");
        command.add(classpath);
        command.add("dev.deja.daemon.DaemonServer"); // by name: the client loads none of the server's classes
        return command;
    }

    /** Waits until the server that declined is gone (its socket removed), at most ten seconds. */
    private static void awaitGone(DaemonLocation location) {
        long deadline = System.currentTimeMillis() + 10_000;
        while (Files.exists(location.socket()) && System.currentTimeMillis() < deadline) {
            sleep(20);
        }
    }

    /** The server's status, or empty if none runs. */
    public static Optional<String> status(Path home) {
        return ask(home, Protocol.Kind.STATUS);
    }

    /** Stops the server and waits for it to be gone; what it said, or empty if none ran. */
    public static Optional<String> stop(Path home) {
        return stop(DaemonLocation.of(home));
    }

    /** Stops the server at {@code location} and waits for it to be gone; what it said, or empty if none ran. */
    public static Optional<String> stop(DaemonLocation location) {
        Optional<String> answer = ask(location, Protocol.Kind.STOP);
        answer.ifPresent(ignored -> awaitGone(location));
        return answer;
    }

    private static Optional<String> ask(Path home, Protocol.Kind kind) {
        return ask(DaemonLocation.of(home), kind);
    }

    private static Optional<String> ask(DaemonLocation location, Protocol.Kind kind) {
        SocketChannel channel = connect(location);
        if (channel == null) {
            return Optional.empty();
        }
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        Outcome outcome = exchange(channel, request(kind, "", List.of()), text, text);
        return outcome.kind() == Outcome.Kind.EXIT ? Optional.of(text.toString(StandardCharsets.UTF_8)) : Optional.empty();
    }

    private static void flushQuietly(OutputStream stream) {
        try {
            stream.flush();
        } catch (IOException e) {
            // Nothing more to do for a closed stream.
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // Already unusable.
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
