package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.deja.check.CheckReport;
import dev.deja.examples.paxos.PaxosExample;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja view} as a user runs it, on a simulated seven-process Paxos run with the latest-response bug (seed
 * 22, checked with scripts/paxos.py): pictures without a display, and clear refusals.
 */
class ViewCommandIT {
    private static final String SIMULATE = "simulate paxos --nodes 7 --bug latest-response --seed 22 --drop 0.3"
            + " --delay 1ms..100ms --out";

    @TempDir
    static Path temporary;
    private static Path trace;
    private static Path report;
    private static long violationAt;

    @BeforeAll
    static void simulateAndCheck() {
        trace = temporary.resolve("paxos");
        report = temporary.resolve("report.json");
        CliRun.Output simulated = CliRun.run((SIMULATE + " " + trace).split(" "));
        assertThat(simulated.status()).as(simulated.err()).isZero();
        CliRun.Output checked = CliRun.run("check", trace.toString(), Path.of("..").resolve(new PaxosExample().script().orElseThrow()).toString(), "--json", report.toString());
        assertThat(checked.status()).as("the bug shows with seed 22: " + checked.out() + checked.err()).isEqualTo(1);
        violationAt = CheckReport.read(report).violations().getFirst().event().position();
    }

    @Test
    void view_withPng_writesThePictureAroundTheViolation() throws Exception {
        Path png = temporary.resolve("around.png");
        CliRun.Output output = CliRun.run("view", trace.toString(), "--report", report.toString(), "--png", png.toString(),
                "--at", Long.toString(violationAt), "--cone");
        assertThat(output.status()).as(output.err()).isZero();
        assertThat(output.out()).isEqualTo("deja view: wrote " + png + ": positions " + (violationAt - 100) + ".."
                + (violationAt + 40) + " of 5812, 7 node(s), 1 of 1 violation(s) in range\n");
        assertThat(output.err()).contains("deja view: read 5812 entries of 7 nodes");
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(180 + 141 * 10);
        assertThat(image.getHeight()).as("title, axis, 7 lanes, a stripe row and a legend").isBetween(300, 340);
    }

    @Test
    void view_withPngTwice_writesTheSameBytes() throws Exception {
        Path first = temporary.resolve("first.png");
        Path second = temporary.resolve("second.png");
        for (Path png : new Path[] {first, second}) {
            CliRun.Output output = CliRun.run("view", trace.toString(), "--png", png.toString(), "--from", "100", "--to", "400",
                    "--type", "Begin", "--type", "Last", "--hide-timers");
            assertThat(output.status()).as(output.err()).isZero();
        }
        assertThat(Files.readAllBytes(first)).isEqualTo(Files.readAllBytes(second));
    }

    @Test
    void view_withAReportOfAnotherTrace_refusesNamingTheMismatch() throws Exception {
        Path other = temporary.resolve("other");
        assertThat(CliRun.run("simulate", "paxos", "--nodes", "3", "--seed", "3", "--out", other.toString()).status()).isZero();
        CliRun.Output output = CliRun.run("view", other.toString(), "--report", report.toString(), "--png",
                temporary.resolve("x.png").toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).contains("deja view: " + report + " does not belong to the trace " + other)
                .contains("violation of global_consistency at position " + violationAt);
        assertThat(Files.exists(temporary.resolve("x.png"))).isFalse();
    }

    @Test
    void view_withBadOptions_saysWhatIsWrong() {
        String png = temporary.resolve("bad.png").toString();
        assertThat(CliRun.run("view", trace.toString(), "--png", png, "--from", "9000").err())
                .contains("--from 9000 is outside the trace " + trace + " (positions 0..5811)");
        assertThat(CliRun.run("view", trace.toString(), "--png", png, "--node", "n9").err())
                .contains("--node n9: the trace has no node n9 (nodes: n1, n2, n3, n4, n5, n6, n7)");
        assertThat(CliRun.run("view", trace.toString(), "--png", png, "--type", "Nope").err())
                .contains("--type Nope: no message of that type in the trace (types: Accepted, Begin, Collect, Decided, Last, Propose, Query)");
        assertThat(CliRun.run("view", trace.toString(), "--png", png, "--threshold", "enough_time").err())
                .contains("threshold 'enough_time' must read NAME=VALUE");
        assertThat(CliRun.run("view", trace.toString(), "--png", png, "--cone").err()).contains("--cone needs --at POS");
        assertThat(CliRun.run("view", temporary.resolve("missing").toString(), "--png", png).err())
                .contains("deja view: trace directory " + temporary.resolve("missing") + " does not exist");
    }

    /**
     * Two three-node Paxos runs from one seed that part at the first message: with another loss probability the
     * loss draws, and so every later choice, differ.
     */
    private static Path[] partingRuns() {
        Path a = temporary.resolve("compare-a");
        Path b = temporary.resolve("compare-b");
        if (!Files.isDirectory(b)) {
            for (String[] run : new String[][] {{a.toString(), "0.3"}, {b.toString(), "0.2"}}) {
                CliRun.Output output = CliRun.run("simulate", "paxos", "--nodes", "3", "--seed", "5", "--drop", run[1],
                        "--delay", "1ms..50ms", "--virtual-time", "2s", "--out", run[0]);
                assertThat(output.status()).as(output.err()).isZero();
            }
        }
        return new Path[] {a, b};
    }

    /** The last position of run A, read from the comparison's first line. */
    private static String lastOfA(String text) {
        java.util.regex.Matcher size = java.util.regex.Pattern.compile("^A: compare-a, (\\d+) entries").matcher(text);
        assertThat(size.find()).as(text).isTrue();
        return Long.toString(Long.parseLong(size.group(1)) - 1);
    }

    @Test
    void viewCompare_withText_printsThePrefixTheFirstDifferenceAndTheStateDiff() {
        Path[] runs = partingRuns();

        CliRun.Output output = CliRun.run("view", runs[0].toString(), "--compare", runs[1].toString(), "--text");
        CliRun.Output atEnd = CliRun.run("view", runs[0].toString(), "--compare", runs[1].toString(), "--text",
                "--at", lastOfA(output.out()));

        assertThat(output.status()).as(output.err()).isZero();
        assertThat(output.out()).containsPattern("(?m)^A: compare-a, \\d+ entries; B: compare-b, \\d+ entries; 3 node\\(s\\)$")
                .containsPattern("(?m)^common prefix: \\d+ entries \\(n1 \\d+, n2 \\d+, n3 \\d+\\)$")
                .containsPattern("(?m)^first difference: A position \\d+, B position \\d+, node n\\d$")
                .containsPattern("(?m)^    - A: position \\d+: .*$").containsPattern("(?m)^    \\+ B: position \\d+: .*$")
                .containsPattern("(?m)^state of every node at A position \\d+ .*: [0-3] of 3 node\\(s\\) differ \\(- A, \\+ B\\)$");
        assertThat(output.err()).contains("deja view: " + runs[0] + " (");
        // At the end of two runs that parted, the nodes hold different things, shown member by member.
        assertThat(atEnd.status()).as(atEnd.err()).isZero();
        assertThat(atEnd.out()).containsPattern("(?m)^state of every node at A position " + lastOfA(output.out())
                        + " .*: [1-3] of 3 node\\(s\\) differ \\(- A, \\+ B\\)$")
                .containsPattern("(?m)^  n\\d: \\d+ member\\(s\\) differ$")
                .containsPattern("(?m)^-  +\\S.*$").containsPattern("(?m)^\\+  +\\S.*$");
    }

    @Test
    void viewCompare_withPng_drawsBothGraphsOverTheStateDiff() throws Exception {
        Path[] runs = partingRuns();
        Path png = temporary.resolve("compare.png");
        String last = lastOfA(CliRun.run("view", runs[0].toString(), "--compare", runs[1].toString(), "--text").out());

        CliRun.Output output = CliRun.run("view", runs[0].toString(), "--compare", runs[1].toString(), "--png",
                png.toString(), "--width", "900", "--at", last);

        assertThat(output.status()).as(output.err()).isZero();
        assertThat(output.out()).startsWith("deja view: wrote " + png + ": " + runs[0] + " over " + runs[1]);
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(900);
        // The state panel under the graphs shows run A's values on red and run B's on green.
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = image.getHeight() / 2; y < image.getHeight(); y++) {
            colours.add(image.getRGB(450, y) & 0xFFFFFF);
        }
        assertThat(colours).contains(0xfde8e8, 0xe6f4ea);
    }

    @Test
    void viewCompare_withRunsOfAnotherClusterOrNoTrace_refusesInOneLine() {
        Path[] runs = partingRuns();

        CliRun.Output other = CliRun.run("view", runs[0].toString(), "--compare", trace.toString(), "--text");
        CliRun.Output missing = CliRun.run("view", runs[0].toString(), "--compare", temporary.resolve("none").toString(),
                "--text");
        CliRun.Output textWithoutCompare = CliRun.run("view", runs[0].toString(), "--text");
        CliRun.Output filtered = CliRun.run("view", runs[0].toString(), "--compare", runs[1].toString(), "--text",
                "--node", "n1");

        assertThat(other.status()).isEqualTo(2);
        assertThat(other.err()).contains(runs[0] + " and " + trace + " are runs of different clusters: " + runs[0]
                + " has nodes n1, n2, n3, " + trace + " has n1, n2, n3, n4, n5, n6, n7");
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).contains("--compare " + temporary.resolve("none") + ": the trace directory does not exist");
        assertThat(textWithoutCompare.status()).isEqualTo(2);
        assertThat(textWithoutCompare.err()).contains("--text goes with --compare TRACE_B");
        assertThat(filtered.status()).isEqualTo(2);
        assertThat(filtered.err()).contains("--compare does not take the filters");
    }

    @Test
    void view_withoutPngAndWithoutADisplay_asksForPng() {
        assumeThat(System.getenv("DISPLAY")).as("only without a display (with one, a window would open)").isNull();
        assumeThat(System.getenv("WAYLAND_DISPLAY")).isNull();
        CliRun.Output output = CliRun.run("view", trace.toString());
        assertThat(output.status()).isEqualTo(ExitCodes.USAGE);
        assertThat(output.err()).contains("cannot open a window: no display (DISPLAY is not set); the window needs an X "
                + "display and GTK 3 (Debian/Ubuntu: apt-get install libgtk-3-0", "or write a picture instead with --png FILE");
    }

    /**
     * A display the toolkit cannot use (no X server there; on a machine without GTK 3 the toolkit fails even
     * earlier): one line saying so, naming the package, suggesting --png, before the trace is read and without
     * a stack trace. In a child JVM, because a toolkit that failed to start cannot be started again.
     */
    @Test
    void view_onADisplayTheToolkitCannotUse_saysSoInOneLineNamingThePackage() throws Exception {
        String display = ":" + unusedDisplay();
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "dev.deja.main.DejaCli", "view", trace.toString());
        builder.environment().put("DISPLAY", display);
        builder.environment().remove("WAYLAND_DISPLAY");
        builder.environment().remove("DEJA_DEBUG");
        builder.redirectErrorStream(false);
        Process process = builder.start();
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes());
        String err = new String(process.getErrorStream().readAllBytes());
        assertThat(process.waitFor()).as(err).isEqualTo(ExitCodes.USAGE);
        assertThat(out).isEmpty();
        java.util.List<String> ours = err.lines().filter(line -> line.startsWith("deja view:")).toList();
        assertThat(ours).as(err).hasSize(1);
        assertThat(ours.getFirst()).startsWith("deja view: cannot open a window: the display toolkit did not start on DISPLAY="
                        + display + " (")
                .contains("apt-get install libgtk-3-0", "or write a picture instead with --png FILE");
        assertThat(err).as("no stack trace").doesNotContain("\tat ", "Exception");
    }

    /** A display number with no X server socket. */
    private static int unusedDisplay() {
        for (int number = 93; number < 200; number++) {
            if (!Files.exists(Path.of("/tmp/.X11-unix/X" + number))) {
                return number;
            }
        }
        throw new AssertionError("every display from :93 to :199 has an X server socket");
    }
}
