package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.runtime.NodeRunner;
import dev.deja.runtime.Platform;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.NodeLogWriter;
import dev.deja.trace.Payload;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja replay} of a user's own node class, which only exists in a jar compiled by this test (so it is on
 * no classpath but the one given with {@code --classpath}).
 */
class ReplayCommandIT {
    private static final String NODE_CLASS = "com.example.user.Ticker";
    private static final String NODE_SOURCE = """
            package com.example.user;

            import dev.deja.node.Env;
            import dev.deja.node.Node;
            import dev.deja.node.NodeId;
            import dev.deja.node.TimerId;
            import java.time.Duration;

            public final class Ticker implements Node {
                private long total;

                @Override
                public void onStart(Env env) {
                    env.setTimer(Duration.ofMillis(10), "tick");
                }

                @Override
                public void onMessage(Env env, NodeId from, Object message) {
                }

                @Override
                public void onTimer(Env env, TimerId timer, Object tag) {
                    total += env.random().nextInt(100) + env.nowMillis() % 7;
                    env.storage().write("total", Long.toString(total).getBytes());
                    env.setTimer(Duration.ofMillis(10), "tick");
                }
            }
            """;
    private static final int TICKS = 50;

    @TempDir
    static Path work;
    private static Path jar;
    private static Path trace;

    @BeforeAll
    static void compileAndRecord() throws Exception {
        jar = compile(NODE_SOURCE, "user-nodes");
        trace = work.resolve("trace");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ReplayCommandIT.class.getClassLoader())) {
            record(loader);
        }
    }

    /** Compiles {@code source} (the class {@link #NODE_CLASS}) into {@code name/name.jar} of the work directory. */
    private static Path compile(String source, String name) throws Exception {
        Path sources = Files.createDirectories(work.resolve(name + "-src/com/example/user"));
        Path classes = Files.createDirectories(work.resolve(name + "-classes"));
        Files.writeString(sources.resolve("Ticker.java"), source);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                sources.resolve("Ticker.java").toString());
        assertThat(status).as("compiling the user's node").isZero();
        Path compiled = Files.createDirectories(work.resolve(name)).resolve(name + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(compiled))) {
            String entry = NODE_CLASS.replace('.', '/') + ".class";
            out.putNextEntry(new JarEntry(entry));
            Files.copy(classes.resolve(entry), (OutputStream) out);
            out.closeEntry();
        }
        return compiled;
    }

    /** Records one incarnation of the user's node: its start and {@link #TICKS} timer firings. */
    private static void record(ClassLoader loader) throws Exception {
        NodeId self = new NodeId("t1");
        Node node = (Node) loader.loadClass(NODE_CLASS).getDeclaredConstructor().newInstance();
        Deque<TimerId> timers = new ArrayDeque<>();
        long[] clock = {1_700_000_000_000L};
        long[] random = {42};
        Platform platform = new Platform() {
            @Override public long currentTimeMillis() { return clock[0] += 10; }
            @Override public long nextRandomLong() { return random[0] = random[0] * 6364136223846793005L + 1442695040888963407L; }
            @Override public Optional<byte[]> storageRead(String key) { return Optional.empty(); }
            @Override public void storageWrite(String key, byte[] value) { }
            @Override public void storageSync() { }
            @Override public void transmit(NodeId to, long senderLamport, long messageId, Payload message) { }
            @Override public boolean knows(NodeId other) { return false; }
            @Override public void scheduleTimer(TimerId timer, Duration delay) { timers.add(timer); }
            @Override public void cancelTimer(TimerId timer) { timers.remove(timer); }
            @Override public void log(NodeId id, int incarnation, String line) { }
        };
        try (NodeLogWriter writer = NodeLogWriter.open(trace, self, NODE_CLASS, "1.0", 1, clock[0])) {
            NodeRunner runner = new NodeRunner(node, new NodeRunner.Setup(self, List.of(), Map.of(), 1, 0, 0, 0),
                    platform, new MessageCodec(loader), writer);
            runner.start();
            for (int i = 0; i < TICKS; i++) {
                runner.fireTimer(timers.removeFirst());
            }
            writer.close(clock[0]);
        }
    }

    @Test
    void replay_withTheUsersClasspath_replaysWithoutDivergence() {
        CliRun.Output output = CliRun.run("replay", trace.toString(), "--classpath", jar.toString());
        assertThat(output.err()).isEmpty();
        assertThat(output.status()).isZero();
        // start + 50 timers (the handler calls), each with a random draw and a clock read (entries)
        assertThat(output.out()).matches("(?s)replayed " + (1 + TICKS) + " handler calls \\(" + (1 + 3 * TICKS)
                + " entries\\) of 1 nodes in [0-9.]+ s \\([0-9]+ entries/s\\), divergences: 0\\R");
    }

    @Test
    void replay_withAJarDirectoryWildcard_findsTheJar() {
        CliRun.Output output = CliRun.run("replay", trace.toString(), "--classpath", jar.getParent() + "/*");
        assertThat(output.status()).isZero();
        assertThat(output.out()).contains("divergences: 0");
    }

    @Test
    void replay_untilAPosition_stopsThere() {
        CliRun.Output output = CliRun.run("replay", trace.toString(), "--classpath", jar.toString(), "--until", "10");
        assertThat(output.status()).isZero();
        assertThat(output.out()).startsWith("replayed ").contains("(10 entries) of 1 nodes");
    }

    @Test
    void replay_ofChangedCode_reportsTheDivergenceAndExitsOne() throws Exception {
        // The user changed the handler: it draws a second random number where the recording read the clock.
        Path changed = compile(NODE_SOURCE.replace("env.random().nextInt(100) + env.nowMillis() % 7",
                "env.random().nextInt(100) + env.random().nextInt(7)"), "changed-nodes");
        CliRun.Output output = CliRun.run("replay", trace.toString(), "--classpath", changed.toString());
        assertThat(output.status()).as(output.err()).isEqualTo(ExitCodes.FINDINGS);
        // start (seq 0), then the first timer: fired (1), random draw (2), the clock read expected at seq 3.
        assertThat(output.out()).contains("divergence at node t1 (incarnation 1), seq 3").contains("expected:")
                .contains("actual:").endsWith("divergences: 1" + System.lineSeparator());
    }

    @Test
    void replay_withoutTheUsersClasspath_saysWhichClassIsMissing() {
        CliRun.Output output = CliRun.run("replay", trace.toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).startsWith("deja replay: ").contains("node t1", NODE_CLASS, "classpath")
                .doesNotContain("\tat ");
    }

    @Test
    void replay_withAMissingClasspathEntry_refusesNamingIt() {
        CliRun.Output output = CliRun.run("replay", trace.toString(), "--classpath", work.resolve("nope.jar").toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).isEqualTo("deja replay: --classpath: " + work.resolve("nope.jar") + " does not exist"
                + System.lineSeparator());
    }
}
