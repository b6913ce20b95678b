package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.check.testing.TraceBytes;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja explore} end to end: on Paxos with the latest-response bug it exits 1 and writes the shortest violating
 * path as a trace that {@code deja check} reports the same predicate in, at the position the report gives, and as a
 * schedule that {@code deja simulate --schedule} turns into the same trace, byte for byte; on a user's cluster file
 * with node classes compiled by this test into a jar, it finds the user's bug; bad options exit 2 with one line.
 */
class ExploreCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void explore_paxosBug_writesATraceThatCheckAndSimulateAgreeWith() throws Exception {
        Path out = work.resolve("explore");
        CliRun.Output explored = CliRun.run("explore", "paxos", "--nodes", "3", "--bug", "latest-response", "--drop", "0.3",
                "--delay", "1ms..100ms", "--script", "../scripts/paxos.py", "--paths", "400", "--workers", "1",
                "--stop-at-first", "--out", out.toString());
        System.out.println(explored.out() + explored.err());
        assertThat(explored.status()).as(explored.err()).isEqualTo(1);
        JsonNode finding = JSON.readTree(out.resolve("report.json").toFile()).get("findings").get(0);
        assertThat(finding.get("predicate").asText()).isEqualTo("global_consistency");
        assertThat(finding.get("kind").asText()).isEqualTo("safety");
        Path trace = Path.of(finding.get("trace").asText());
        long position = finding.get("position").asLong();

        CliRun.Output checked = CliRun.run("check", trace.toString(), "../scripts/paxos.py");
        assertThat(firstPosition(checked.out(), "global_consistency")).as("deja check's position of the violation: "
                + checked.out() + checked.err()).isEqualTo(position);

        String reproduce = finding.get("reproduce").asText();
        assertThat(reproduce).startsWith("./deja simulate paxos --nodes 3 --bug latest-response --drop 0.3 --delay 1ms..100ms"
                + " --seed 1 --schedule ");
        Path again = work.resolve("again");
        List<String> args = List.of(reproduce.replace(" --out " + trace, " --out " + again).split(" "));
        CliRun.Output simulated = CliRun.run(args.subList(1, args.size()).toArray(String[]::new));
        assertThat(simulated.status()).as(simulated.out() + simulated.err()).isZero();
        assertThat(TraceBytes.nodeLogDigests(again)).as("the node logs of simulate --schedule and of the explorer's trace")
                .isEqualTo(TraceBytes.nodeLogDigests(trace));
    }

    /** The POSITION column of the first VIOLATED row of {@code predicate} in deja check's table, or -1. */
    private static long firstPosition(String table, String predicate) {
        List<String> lines = table.lines().toList();
        int column = -1;
        for (String line : lines) {
            List<String> words = List.of(line.strip().split("\\s+"));
            if (column < 0 && words.contains("POSITION")) {
                column = words.indexOf("POSITION");
            } else if (column >= 0 && words.contains(predicate) && words.contains("VIOLATED") && words.size() > column) {
                return Long.parseLong(words.get(column));
            }
        }
        return -1;
    }

    private static final String COUNTER = """
            package com.example.user;

            import dev.deja.node.Env;
            import dev.deja.node.Node;
            import dev.deja.node.NodeId;
            import dev.deja.node.TimerId;

            /** Two nodes each grant a lease to whoever asks first, without asking each other: two holders at once. */
            public final class LeaseNode implements Node {
                public String holder;

                @Override
                public void onStart(Env env) {
                }

                @Override
                public void onMessage(Env env, NodeId from, Object message) {
                    if (holder == null) {
                        holder = from.value();
                        env.send(from, "granted");
                    }
                }

                @Override
                public void onTimer(Env env, TimerId timer, Object tag) {
                }
            }
            """;

    private static final String CLIENT = """
            package com.example.user;

            import dev.deja.node.Env;
            import dev.deja.node.NodeId;
            import dev.deja.node.TimerId;
            import dev.deja.runtime.WorkloadDriver;

            /** Asks both lease nodes for the lease, as two different clients would. */
            public final class LeaseClient implements WorkloadDriver {
                private int granted;

                @Override
                public void onStart(Env env) {
                    for (NodeId node : env.peers()) {
                        env.send(node, "acquire");
                    }
                }

                @Override
                public void onMessage(Env env, NodeId from, Object message) {
                    granted++;
                }

                @Override
                public void onTimer(Env env, TimerId timer, Object tag) {
                }

                @Override
                public boolean finished() {
                    return granted >= 2;
                }
            }
            """;

    private static final String SCRIPT = """
            from deja import table, always
            Lease = table("Lease", cls="com.example.user.LeaseNode", columns=["holder"])

            @always
            def one_holder():
                return len([l for l in Lease if l.holder is not None]) <= 1
            """;

    /** The user's project: the lease classes compiled by this test into a jar, its cluster file and its script. */
    private record UserProject(Path jar, Path cluster, Path script) {
    }

    private UserProject userProject(String script) throws Exception {
        Path sources = Files.createDirectories(work.resolve("src/com/example/user"));
        Path classes = Files.createDirectories(work.resolve("classes"));
        Files.writeString(sources.resolve("LeaseNode.java"), COUNTER);
        Files.writeString(sources.resolve("LeaseClient.java"), CLIENT);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                sources.resolve("LeaseNode.java").toString(), sources.resolve("LeaseClient.java").toString());
        assertThat(status).as("compiling the user's nodes").isZero();
        Path jar = work.resolve("lease.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : List.of("LeaseNode", "LeaseClient")) {
                String entry = "com/example/user/" + name + ".class";
                out.putNextEntry(new JarEntry(entry));
                Files.copy(classes.resolve(entry), (OutputStream) out);
                out.closeEntry();
            }
        }
        Path cluster = work.resolve("cluster.json");
        Files.writeString(cluster, """
                { "nodes": {
                    "n1": { "address": "127.0.0.1:7301", "class": "com.example.user.LeaseNode" },
                    "n2": { "address": "127.0.0.1:7302", "class": "com.example.user.LeaseNode" } },
                  "clients": { "client": { "address": "127.0.0.1:7300", "class": "com.example.user.LeaseClient" } } }
                """);
        Path file = work.resolve("lease.py");
        Files.writeString(file, script);
        return new UserProject(jar, cluster, file);
    }

    @Test
    void explore_userClusterFile_withClassesCompiledOutsideTheProject_findsTheUsersBug() throws Exception {
        UserProject project = userProject(SCRIPT);
        Path jar = project.jar();
        Path cluster = project.cluster();
        Path script = project.script();
        Path out = work.resolve("explore");
        CliRun.Output explored = CliRun.run("explore", "--cluster", cluster.toString(), "--classpath", jar.toString(),
                "--script", script.toString(), "--strategy", "dfs", "--out", out.toString());
        System.out.println(explored.out() + explored.err());
        assertThat(explored.status()).as(explored.out() + explored.err()).isEqualTo(1);
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertThat(report.get("ending").asText()).isEqualTo("exhausted");
        JsonNode finding = report.get("findings").get(0);
        assertThat(finding.get("predicate").asText()).isEqualTo("one_holder");
        assertThat(finding.get("reproduce").asText()).contains("--cluster " + cluster, "--classpath " + jar);
        CliRun.Output checked = CliRun.run("check", finding.get("trace").asText(), script.toString(), "--classpath",
                jar.toString());
        assertThat(checked.out()).as(checked.err()).contains("one_holder", "VIOLATED");
    }

    /** The lease script, printing a line the first time a path breaks {@code one_holder}. */
    private static final String SCRIPT_WITH_MARK = SCRIPT + """
            _marked = {"done": False}


            @always
            def mark_first_break():
                if not one_holder() and not _marked["done"]:
                    _marked["done"] = True
                    print("deja-test: a path broke one_holder")
                return True
            """;

    @Test
    void explore_interruptedBySigint_printsThePartialReport_andExitsWithItsStatus() throws Exception {
        UserProject project = userProject(SCRIPT_WITH_MARK);
        Path out = work.resolve("interrupted");
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(flag -> !flag.startsWith("-javaagent") && !flag.startsWith("-Dbasedir")
                        && !flag.startsWith("-Dsurefire") && !flag.startsWith("-Dfailsafe"))
                .toList());
        // C1 alone, as the launcher runs an explore with a script in a new JVM: half the CPU of a cold start.
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.deja.main.DejaCli", "explore",
                "--cluster", project.cluster().toString(), "--classpath", project.jar().toString(), "--script",
                project.script().toString(), "--strategy", "random", "--paths", "1000000000", "--workers", "1",
                "--out", out.toString()));
        Path stdout = work.resolve("stdout.txt");
        Path stderr = work.resolve("stderr.txt");
        Process process = new ProcessBuilder(Sigint.withDefaultSigint(command)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            // Wait until the search has found something (the script says so), then press Ctrl-C.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            while (!Files.readString(stderr).contains("deja-test: a path broke one_holder")) {
                assertThat(process.isAlive()).as("deja explore ended before it was interrupted: %s%s",
                        Files.readString(stdout), Files.readString(stderr)).isTrue();
                assertThat(System.nanoTime()).as("no path broke one_holder within 240 s: %s", Files.readString(stderr))
                        .isLessThan(deadline);
                Thread.sleep(200);
            }
            Sigint.interruptAndAwait(process, 300, "deja explore", List.of(), stdout, stderr);
        } finally {
            process.destroyForcibly();
        }
        String printed = Files.readString(stdout);
        System.out.println(printed + Files.readString(stderr));
        assertThat(process.exitValue()).as("exit status after SIGINT with a violation found; %s", printed).isEqualTo(1);
        assertThat(printed).contains("interrupted").contains("one_holder");
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertThat(report.get("ending").asText()).isEqualTo("interrupted");
        assertThat(report.get("paths").asLong()).isPositive();
        assertThat(report.get("findings").get(0).get("predicate").asText()).isEqualTo("one_holder");
        assertThat(Path.of(report.get("findings").get(0).get("trace").asText())).isDirectory();
    }

    @Test
    void explore_unknownStrategy_exits2WithOneLine() {
        CliRun.Output output = CliRun.run("explore", "paxos", "--strategy", "bfs", "--out", work.resolve("x").toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains("--strategy bfs: expected random, dfs, dpor, pct or pos");
    }

    @Test
    void explore_walksWithoutScript_exits2WithOneLine() {
        CliRun.Output output = CliRun.run("explore", "chord", "--walks", "3", "--out", work.resolve("x").toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains("--walks needs --script");
    }

    @Test
    void explore_negativeWalks_exits2WithOneLine() {
        CliRun.Output output = CliRun.run("explore", "chord", "--walks", "-1", "--script", "../scripts/chord.py",
                "--out", work.resolve("x").toString());
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).contains("--walks -1: expected 0 or more walks");
    }
}
