package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.ChoiceSource;
import dev.deja.sim.SimulationSettings;
import dev.deja.sim.Simulator;
import dev.deja.trace.Trace;
import dev.deja.view.TraceModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Findings a user can act on, on a small protocol written here: a coordinator decides six transactions and tells
 * three participants, one of which (n3) aborts every even-numbered one (the bug); the coordinator also pings
 * everyone every 10 ms. The last participant, n4, is crashed by the choice source after step {@value #CRASH_STEP}
 * and never restarts. Several transactions violate atomicity at different times (one finding each); after n4's
 * death the even transactions are held by one live participant only, so their replication spans, closed long
 * before, open again as new findings that stay open to the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FindingsCommandIT {
    private static final long SEED = 7;
    private static final long CRASH_STEP = 80;

    /** The protocol's only node class; the coordinator is n1. */
    public static final class Ledger implements Node {
        final List<String> decided = new ArrayList<>();
        final List<String> committed = new ArrayList<>();
        final List<String> aborted = new ArrayList<>();
        private int next;

        /** Tells a participant that the transaction commits. */
        public record Commit(String tid) {
        }

        /** A heartbeat. */
        public record Ping(int round) {
        }

        @Override
        public void onStart(Env env) {
            if (env.self().value().equals("n1")) {
                env.setTimer(Duration.ofMillis(10), "tick");
            }
        }

        @Override
        public void onTimer(Env env, TimerId timer, Object tag) {
            if (next < 6) {
                next++;
                String tid = String.format("t%03d", next);
                decided.add(tid);
                for (NodeId peer : env.peers()) {
                    env.send(peer, new Commit(tid));
                }
            }
            for (NodeId peer : env.peers()) {
                env.send(peer, new Ping(next));
            }
            env.setTimer(Duration.ofMillis(10), "tick");
        }

        @Override
        public void onMessage(Env env, NodeId from, Object message) {
            if (message instanceof Commit(String tid)) {
                boolean even = Integer.parseInt(tid.substring(1)) % 2 == 0;
                if (env.self().value().equals("n3") && even) {
                    aborted.add(tid);   // the bug: n3 aborts what the coordinator committed
                } else {
                    committed.add(tid);
                }
            }
        }
    }

    private static final String SCRIPT = """
            from deja import table, always, eventually, nodes
            Ledger = table("Ledger", cls="dev.deja.cli.FindingsCommandIT$Ledger",
                           columns=["decided", "committed", "aborted"])

            def holders(tid):
                return sorted(r.node for r in Ledger if tid in r.committed)

            @always(aux=[holders])
            def atomicity():
                committed, aborted = set(), set()
                for r in Ledger:
                    committed.update(r.committed)
                    aborted.update(r.aborted)
                return committed & aborted

            def alive_holders(tid):
                return len([r for r in Ledger if tid in r.committed and nodes.get(r.node).alive])

            @eventually(aux=[alive_holders])
            def replicated():
                return {tid for r in Ledger for tid in r.decided if alive_holders(tid) < 2}

            @always
            def n4_alive():
                n = nodes.get("n4")
                return n is None or n.alive
            """;

    private static final String LIVENESS_SCRIPT = SCRIPT.substring(0, SCRIPT.indexOf("@always\ndef n4_alive"))
            .replace("@always(aux=[holders])\ndef atomicity", "def atomicity");

    @TempDir
    Path temporary;

    private Path trace;
    private Path script;
    private String command;

    @BeforeAll
    void simulate(@TempDir Path directory) throws Exception {
        SimulationSettings.Builder builder = SimulationSettings.builder().seed(SEED).delayMillis(1, 5)
                .crashRate(0.5).restartDelayMillis(10_000_000).maxVirtualMillis(300)
                .stop(SimulationSettings.Stop.AT_LIMIT);
        for (String node : List.of("n1", "n2", "n3", "n4")) {
            builder.node(new NodeId(node), Ledger.class.getName(), Map.of());
        }
        SimulationSettings settings = builder.build();
        trace = directory.resolve("ledger");
        command = "a seeded source (" + SEED + ") that crashes the last running node after step " + CRASH_STEP;
        ChoiceSource seeded = ChoiceSource.seeded(SEED);
        ChoiceSource crashOnce = new ChoiceSource() {
            @Override
            public int pick(ChoicePoint point, int options) {
                return point instanceof ChoicePoint.CrashVictim ? options - 1 : seeded.pick(point, options);
            }

            @Override
            public boolean chance(ChoicePoint point, double probability) {
                return point instanceof ChoicePoint.Crash crash ? crash.step() == CRASH_STEP
                        : seeded.chance(point, probability);
            }

            @Override
            public long between(ChoicePoint point, long min, long max) {
                return seeded.between(point, min, max);
            }

            @Override
            public long bits(ChoicePoint point) {
                return seeded.bits(point);
            }
        };
        Simulator.run(settings, trace, Simulator.Options.of(settings).withChoices(crashOnce).withCommand("test"));
        var events = Trace.open(trace).summary().orElseThrow().events();
        assertThat(events).as("the launcher's events: %s", command)
                .anySatisfy(e -> assertThat(e.action() + " " + e.node()).isEqualTo("crash n4"))
                .noneSatisfy(e -> assertThat(e.action()).isEqualTo("restart"));
        script = Files.writeString(directory.resolve("ledger.py"), SCRIPT);
    }

    @Test
    @SuppressWarnings("unchecked")
    void check_witnessesThresholdsSqlAndWhy_tellEveryItemAndItsCause() throws Exception {
        Path first = temporary.resolve("first.json");
        CliRun.Output checked = CliRun.run("check", trace.toString(), script.toString(), "--json", first.toString());
        assertThat(checked.status()).as(checked.out() + checked.err()).isEqualTo(1);
        CheckReport report = CheckReport.read(first);

        // Every violating transaction is its own atomicity finding, at its own position, with its own aux.
        List<Violation> atomicity = findings(report, "atomicity");
        assertThat(atomicity).extracting(Violation::witness).as(checked.out())
                .containsExactlyInAnyOrder("t002", "t004", "t006");
        assertThat(atomicity.stream().map(v -> v.event().position()).collect(Collectors.toSet())).hasSize(3);
        for (Violation v : atomicity) {
            // Its own aux: who had committed that transaction when n3 aborted it (or committed it after the abort).
            assertThat((List<Object>) v.aux().get("holders")).as("who committed %s", v.witness()).isNotEmpty()
                    .isSubsetOf(List.of("n2", "n4"));
        }
        assertThat(checked.out()).contains("WITNESS").contains("'t004'");

        // The killed node is not alive from its last event on.
        long n4Last = lastHandlerPosition(trace, "n4");
        List<Violation> dead = findings(report, "n4_alive");
        assertThat(dead).hasSize(1);
        assertThat(dead.getFirst().event().position()).as(command).isEqualTo(n4Last);

        // Even transactions were replicated, then lost their second live holder when n4 died: a new finding each,
        // open at the end, with its at-end aux.
        List<Violation> t002 = findings(report, "replicated").stream().filter(v -> "t002".equals(v.witness())).toList();
        assertThat(t002).hasSize(2);
        assertThat(t002.get(0).endPosition()).as(command).isPresent();
        assertThat(t002.get(1).openAtEnd()).isTrue();
        assertThat(t002.get(1).event().position()).isEqualTo(n4Last);
        assertThat(t002.get(1).auxAtEnd()).containsEntry("alive_holders", 1L);
        List<Object> open = findings(report, "replicated").stream().filter(Violation::openAtEnd)
                .map(Violation::witness).toList();
        assertThat(open).containsExactlyInAnyOrder("t002", "t004", "t006");
        assertThat(checked.out()).contains("open at end").contains("closed at ")
                .contains("checked ").contains(report.counted() + " violations");
        assertThat(report.counted()).isEqualTo(3 + 3 + 1);

        // A re-check from the stored history with a threshold: the open spans with one live holder are screened
        // out, the summary says so, and deja sql's violations table shows exactly this report.
        Path second = temporary.resolve("second.json");
        CliRun.Output rechecked = CliRun.run("check", trace.toString(), script.toString(), "--json", second.toString(),
                "--threshold", "alive_holders=2");
        assertThat(rechecked.err()).contains("stored state history");
        assertThat(rechecked.status()).as(rechecked.out()).isEqualTo(1);
        CheckReport screened = CheckReport.read(second);
        assertThat(screened.screenedOut()).isEqualTo(3);
        assertThat(screened.counted()).isEqualTo(3 + 1);
        assertThat(rechecked.out()).contains("4 violations (3 screened out below alive_holders=2)");
        CliRun.Output sql = CliRun.run("sql", trace.toString(), "SELECT position, predicate, witness, status_text,"
                + " counted, below_threshold FROM violations ORDER BY id", "--format", "json");
        assertThat(sql.status()).as(sql.err()).isEqualTo(0);
        ObjectMapper json = new ObjectMapper();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (var row : json.readTree(sql.out())) {
            rows.add(Map.of("position", row.get("position").asLong(), "predicate", row.get("predicate").asText(),
                    "witness", row.get("witness").isNull() ? "-" : json.readValue(row.get("witness").asText(), Object.class),
                    "status", row.get("status_text").asText(), "counted", Boolean.parseBoolean(row.get("counted").asText()),
                    "below", Boolean.parseBoolean(row.get("below_threshold").asText())));
        }
        List<Map<String, Object>> expected = new ArrayList<>();
        for (Violation v : screened.violations()) {
            expected.add(Map.of("position", v.event().position(), "predicate", v.predicate(),
                    "witness", v.witness() == null ? "-" : v.witness(), "status", v.statusText(),
                    "counted", v.counted(), "below", v.belowThreshold()));
        }
        assertThat(rows).isEqualTo(expected);

        // Why: the open t002 span after n4's death comes from the commits, the abort, and n4's last event.
        int number = screened.violations().indexOf(screened.violations().stream()
                .filter(v -> v.predicate().equals("replicated") && "t002".equals(v.witness()) && v.openAtEnd())
                .findFirst().orElseThrow()) + 1;
        Path picture = temporary.resolve("why.png");
        CliRun.Output why = CliRun.run("why", trace.toString(), "--finding", Integer.toString(number),
                "--png", picture.toString());
        assertThat(why.status()).as(why.err()).isEqualTo(0);
        System.out.println(rechecked.out() + "\n" + why.out());
        List<String> lines = why.out().lines().toList();
        String crashLine = lines.stream().filter(l -> l.contains("never restarted")).findFirst().orElseThrow(
                () -> new AssertionError("no death among the causes:\n" + why.out()));
        assertThat(crashLine.strip()).startsWith(Long.toString(n4Last));
        long listed = lines.stream().filter(l -> l.matches("\\s*\\d+\\s+\\d+\\s+n\\d.*")).count();
        assertThat(listed).as(why.out()).isBetween(4L, 8L);
        assertThat(why.out()).contains("decided gains 't002'").contains("aborted gains 't002'")
                .contains("committed gains 't002'");
        assertThat(Files.size(picture)).isPositive();
        // Kept beside the build's output for a look (the picture's pixels are not compared).
        Files.copy(picture, Path.of("target", "why-ledger.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        // The threshold changes the exit code: a liveness-only script fails on the open spans unless screened.
        Path liveness = Files.writeString(temporary.resolve("liveness.py"), LIVENESS_SCRIPT);
        CliRun.Output unscreened = CliRun.run("check", trace.toString(), liveness.toString());
        assertThat(unscreened.status()).as(unscreened.out()).isEqualTo(1);
        assertThat(unscreened.out()).contains("3 violations");
        CliRun.Output passing = CliRun.run("check", trace.toString(), liveness.toString(), "--threshold", "alive_holders=2");
        assertThat(passing.status()).as(passing.out()).isEqualTo(0);
        assertThat(passing.out()).contains("no violations (3 screened out below alive_holders=2)");
    }

    @Test
    void replay_withOtherNodeCode_saysSoBeforeItStarts() throws Exception {
        String summary = Files.readString(trace.resolve("trace.json"));
        assertThat(summary).contains("\"code\"").contains(Ledger.class.getName()).contains("class sha256 ");
        CliRun.Output same = CliRun.run("replay", trace.toString());
        assertThat(same.err()).doesNotContain("differs");

        // The recorded digest of n2's class as if another build of it had been recorded.
        Path copy = temporary.resolve("copy");
        try (var files = Files.walk(trace)) {
            for (Path file : files.toList()) {
                Path target = copy.resolve(trace.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else if (!file.startsWith(trace.resolve("check"))) {
                    Files.copy(file, target);
                }
            }
        }
        Path manifest = copy.resolve("nodes").resolve("n2").resolve("manifest.json");
        String text = Files.readString(manifest);
        String recorded = text.replaceAll("(?s).*class sha256 ([0-9a-f]{12}).*", "$1");
        Files.writeString(manifest, text.replace("class sha256 " + recorded, "class sha256 000000000000"));
        CliRun.Output other = CliRun.run("replay", copy.toString());
        assertThat(other.err()).contains("deja replay: warning: node n2: class " + Ledger.class.getName()
                + " differs from the recorded one (recorded class sha256 000000000000, now " + recorded + ")");
        CliRun.Output checked = CliRun.run("check", copy.toString(), script.toString());
        assertThat(checked.err()).contains("deja check: warning: node n2: class");
    }

    private static List<Violation> findings(CheckReport report, String predicate) {
        return report.violations().stream().filter(v -> v.predicate().equals(predicate)).toList();
    }

    /** The position of the node's last handler event in the merged order. */
    private static long lastHandlerPosition(Path trace, String node) {
        TraceModel model = TraceModel.open(trace);
        int lane = model.lane(new NodeId(node));
        long last = -1;
        for (int ordinal = 0; ordinal < model.laneSize(lane); ordinal++) {
            int position = model.positionOf(lane, ordinal);
            if (model.type(position).isDispatch()) {
                last = position;
            }
        }
        return last;
    }
}
