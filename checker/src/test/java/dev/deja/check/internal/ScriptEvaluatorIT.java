package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.ScriptException;
import dev.deja.check.StateStep;
import dev.deja.check.TableSchema;
import dev.deja.check.internal.ScriptEvaluator.Finding;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The deja Python module in a real GraalPy context: constructs, incremental evaluation, errors, sandbox, watchdog. */
class ScriptEvaluatorIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final NodeId N2 = new NodeId("n2");
    private static final String HEADER = """
            from deja import table, derived, always, eventually, forall, exists, implies, event, now, stats, nodes
            Agent = table("Agent", cls="x.Agent", columns=["round", "value"], keep_versions={"round": 2})
            """;

    private static ScriptEvaluator load(String body) {
        return load(body, Duration.ofSeconds(3));
    }

    private static ScriptEvaluator load(String body, Duration predicateTimeout) {
        return new ScriptEvaluator(HEADER + body, "test.py", predicateTimeout, new ByteArrayOutputStream());
    }

    private static StateStep step(long position, NodeId node, RowChange... changes) {
        return new StateStep(new CheckedEvent(position, node, 1, position, position + 1, 1000 + position, "receive",
                Optional.of("Begin"), Optional.of(N2)), List.of(changes));
    }

    private static RowChange upsert(RowChange.Kind kind, NodeId node, long oid, Object round, Object value) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("round", round);
        values.put("value", value);
        return new RowChange("Agent", kind, node, oid, values);
    }

    @Test
    void unstorable_textsReadBackExactlyOrNot_toldWithPythonReadingOnlySetsAndUnreadTexts() {
        try (ScriptEvaluator evaluator = load("@always\ndef p():\n    return True\n")) {
            assertThat(evaluator.unstorable(changes("{'o1': ('n1', frozenset({'n2', 'n3'}), None)}", null, "[1, {2, 3}]",
                    "2.5", "{'o1': ('n1', frozenset({'n2', 'n3'}), None)}"))).isEmpty();
            // A set item twice: the checker reads the text, Python finds that the set reads back to {1}.
            assertThat(evaluator.unstorable(changes("[0]", "[{1, 1}]"))).get().asString()
                    .contains("does not read back the same: {1, 1}");
            // A key twice (1 == True): the checker leaves the whole text to Python, which finds {1: 'b'}.
            assertThat(evaluator.unstorable(changes("{1: 'a', True: 'b'}"))).get().asString()
                    .contains("does not read back the same: {1: 'a', True: 'b'}");
            assertThat(evaluator.unstorable(changes("len('x')"))).get().asString().contains("not a literal");
        }
    }

    private static List<dev.deja.check.DerivedValues.Change> changes(String... values) {
        List<dev.deja.check.DerivedValues.Change> out = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            out.add(new dev.deja.check.DerivedValues.Change(i, values[i], null));
        }
        return out;
    }

    /**
     * Many combinations go to Python in chunks: an outcome's number is the same in every chunk (equal witnesses, equal
     * numbers), a raise is -1, and the predicate is evaluated once per combination.
     */
    @Test
    void probe_ofManyCombinations_numbersOutcomesAlikeAcrossChunks() {
        String script = """
                @derived
                def seen():
                    return 0

                @always
                def banded():
                    if seen() == 777:
                        raise ValueError("777")
                    return {seen() // 100} if seen() % 100 >= 50 else set()
                """;
        try (ScriptEvaluator evaluator = load(script)) {
            List<List<String>> combinations = new ArrayList<>();
            for (int value = 0; value < 1000; value++) {
                combinations.add(List.of(String.valueOf(value)));
            }
            int[] outcomes = evaluator.probe("banded", List.of("seen"), combinations).orElseThrow();
            assertThat(outcomes).hasSize(1000);
            for (int value = 0; value < 1000; value++) {
                int expected = value == 777 ? -1 : value % 100 < 50 ? outcomes[0] : outcomes[value - value % 100 + 50];
                assertThat(outcomes[value]).as("seen %d", value).isEqualTo(expected);
            }
            // Ten bands violated, each with its own witness, and the outcome where it holds: eleven numbers.
            assertThat(java.util.Arrays.stream(outcomes).filter(o -> o >= 0).distinct().count()).isEqualTo(11);
            assertThat(evaluator.evaluationCounts().get("banded")).isEqualTo(1000L);
        }
    }

    /**
     * A probe the predicate timeout stops gives no outcomes (the re-check then evaluates the predicate wherever what it
     * reads changes) and leaves the context answering: the values it set are put back, and the next probe works.
     */
    @Test
    void probe_stoppedByThePredicateTimeout_isEmpty_andTheContextStillAnswers() {
        String script = """
                @derived
                def seen():
                    return 0

                @always
                def loops_at_five():
                    while seen() == 5:
                        pass
                    return seen() != 7
                """;
        try (ScriptEvaluator evaluator = load(script, Duration.ofMillis(300))) {
            List<List<String>> combinations = new ArrayList<>();
            for (int value = 0; value < 10; value++) {
                combinations.add(List.of(String.valueOf(value)));
            }
            assertThat(evaluator.probe("loops_at_five", List.of("seen"), combinations)).isEmpty();
            int[] outcomes = evaluator.probe("loops_at_five", List.of("seen"),
                    List.of(List.of("6"), List.of("7"), List.of("8"))).orElseThrow();
            assertThat(outcomes[0]).isEqualTo(outcomes[2]).isNotEqualTo(outcomes[1]);
        }
    }

    @Test
    void fromRepr_readsContainersOfScalars_asPythonReadsTheirText() {
        try (ScriptEvaluator evaluator = load("@always\ndef p():\n    return True\n")) {
            for (String text : List.of("[1, 2]", "[]", "()", "(1,)", "((1,), [])", "(1, 'a', None, True, False, -5)",
                    "{}", "{'a': [1, (2, 3)], 'b': {}}", "{1, 2, 3}", "{'n3', 'n1'}", "set()", "frozenset()",
                    "frozenset({'n2', 'n3'})", "{(0, 'x'): \"it's\", 'o1': ('n1', frozenset({'n2'}), None)}",
                    "[[1, 2], [3]]", "'n1: ok'", "12")) {
                Object value = evaluator.fromRepr(text);
                assertThat(value).as(text).isNotSameAs(ScriptEvaluator.NOT_SCALAR);
                assertThat(evaluator.repr(value)).as(text).isEqualTo(text);
            }
            // Floats, escapes, bytes, big integers and what repr never writes: left to Python.
            for (String text : List.of("[1.5]", "{'a': 'b\\n'}", "(1)", "[1, 2", "[b'x']", "{1: 2, 3}", "[1,2]",
                    "[10000000000000000000000]", "frozenset({})", "[1] ")) {
                assertThat(evaluator.fromRepr(text)).as(text).isSameAs(ScriptEvaluator.NOT_SCALAR);
            }
        }
    }

    @Test
    void syntaxError_isReportedWithFileLineAndColumn() {
        assertThatThrownBy(() -> load("@always\ndef p(:\n    return True\n"))
                .isInstanceOf(ScriptException.class)
                .hasMessageStartingWith("test.py:4:")
                .hasMessageContaining("SyntaxError");
    }

    @Test
    void errorWhileDeclaring_isReportedWithLine() {
        assertThatThrownBy(() -> load("x = 1\nBad = table('Bad', cls='x.Bad', columns=['node'])\n"))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining("test.py:4")
                .hasMessageContaining("ValueError: table Bad: invalid column name 'node'");
    }

    @Test
    void scriptWithoutPredicates_isRefused() {
        assertThatThrownBy(() -> load("x = 1\n")).hasMessageContaining("declares no predicate");
    }

    @Test
    void runtimeError_inPredicate_isAnErrorFindingWithTracebackLine_andOthersGoOn() {
        try (ScriptEvaluator evaluator = load("""
                @always
                def broken():
                    return 1 / len(Agent)
                @always
                def fine():
                    return len(Agent) < 2
                """)) {
            List<Finding> findings = evaluator.evaluate(step(0, N1));
            assertThat(findings).hasSize(1);
            assertThat(findings.getFirst().predicate()).isEqualTo("broken");
            assertThat(findings.getFirst().status()).isEqualTo(Finding.Status.ERROR);
            assertThat(findings.getFirst().message()).contains("test.py:5: in broken").contains("ZeroDivisionError");
            findings = evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a"),
                    upsert(RowChange.Kind.INSERT, N1, 2, 1L, "a")));
            assertThat(findings).extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("broken", Finding.Status.TURNED_TRUE),
                            org.assertj.core.groups.Tuple.tuple("fine", Finding.Status.TURNED_FALSE));
        }
    }

    @Test
    void predicates_areReevaluatedOnlyWhenWhatTheyReadChanged() {
        try (ScriptEvaluator evaluator = load("""
                @derived
                def total():
                    return sum(a.round for a in Agent)
                @always
                def reads_derived():
                    return total() >= 0
                @always
                def reads_event():
                    return event.position >= 0
                @always
                def reads_nothing():
                    return True
                """)) {
            evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a")));
            evaluator.evaluate(step(1, N1));
            evaluator.evaluate(step(2, N1));
            evaluator.evaluate(step(3, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 1L, "b")));
            evaluator.evaluate(step(4, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 5L, "b")));
            Map<String, Long> counts = evaluator.evaluationCounts();
            assertThat(counts).containsEntry("reads_nothing", 1L)
                    .containsEntry("reads_event", 5L)
                    // the table changed at steps 0, 3, 4; the sum only at 0 and 4
                    .containsEntry("total", 3L)
                    .containsEntry("reads_derived", 2L);
        }
    }

    @Test
    void keepVersions_ofRowsAndDerived_andAuxAtViolations() {
        try (ScriptEvaluator evaluator = load("""
                @derived(keep_versions=2)
                def top():
                    return max([a.round for a in Agent], default=None)
                @always(aux=[top])
                def rounds_increase():
                    return forall(Agent, lambda a: implies(len(a.versions("round")) == 2,
                                  lambda: a.versions("round")[0] >= a.versions("round")[1]))
                @always
                def top_history():
                    v = top.versions()
                    return len(v) < 2 or v[1] is None or v[0] >= v[1]
                """)) {
            assertThat(evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 3L, "a")))).isEmpty();
            assertThat(evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 5L, "a")))).isEmpty();
            List<Finding> findings = evaluator.evaluate(step(2, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 4L, "a")));
            assertThat(findings).extracting(Finding::predicate).containsExactly("rounds_increase", "top_history");
            assertThat(evaluator.aux("rounds_increase")).containsEntry("top", 4L);
            // still false at the next change: not reported again
            assertThat(evaluator.evaluate(step(3, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 4L, "b")))).isEmpty();
            assertThat(evaluator.evaluate(step(4, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 6L, "b"))))
                    .extracting(Finding::status).contains(Finding.Status.TURNED_TRUE);
        }
    }

    @Test
    void eventually_turnsFalseAndTrue_andBuiltinsWork() {
        try (ScriptEvaluator evaluator = load("""
                @eventually
                def someone_has_value():
                    return exists(Agent, lambda a: a.value is not None)
                @always
                def builtins():
                    assert event.node in ("n1", "n2") and event.message_type == "Begin" and event.sender == "n2"
                    assert now(event.node) == 1000 + event.position
                    assert stats.messages("Begin") == event.position + 1
                    assert stats.since_message("Begin") == 0
                    assert nodes.get(event.node).alive and nodes.get(event.node).incarnation == 1
                    return len(nodes) >= 1
                """)) {
            List<Finding> first = evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 0L, null)));
            assertThat(first).extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("someone_has_value", Finding.Status.TURNED_FALSE));
            assertThat(evaluator.evaluate(step(1, N2))).isEmpty();
            assertThat(evaluator.evaluate(step(2, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 1L, "x"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_TRUE);
            assertThat(evaluator.evaluate(step(3, N1, new RowChange("Agent", RowChange.Kind.DELETE, N1, 1, Map.of()))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
        }
    }

    @Test
    void compoundValues_areTuplesAndDicts() {
        try (ScriptEvaluator evaluator = load("""
                @always
                def shapes():
                    for a in Agent:
                        assert a.value == (1, "x", {"k": (2,)}), a.value
                        assert isinstance(a.value, tuple) and isinstance(a.value[2], dict)
                    return True
                """)) {
            Map<String, Object> inner = Map.of("k", List.of(2L));
            List<Object> value = new ArrayList<>(List.of(1L, "x", inner));
            assertThat(evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, value)))).isEmpty();
        }
    }

    @Test
    void eventsThatChangeNothingRead_skipPython_butAuxSeesTheirBookkeeping() {
        try (ScriptEvaluator evaluator = load("""
                def seen():
                    return (stats.events(), stats.messages("Begin"), now("n1"))
                @eventually(aux=[seen])
                def two_agents():
                    return len(Agent) == 2
                """)) {
            assertThat(evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
            for (long position = 1; position <= 3; position++) {
                assertThat(evaluator.evaluate(step(position, N1))).isEmpty();
            }
            assertThat(evaluator.evaluationCounts()).containsEntry("two_agents", 1L);
            // Computed after the skipped events' bookkeeping: four events, four Begin messages, n1's clock at 3.
            assertThat(evaluator.aux("two_agents")).containsEntry("seen", List.of(4L, 4L, 1003L));
            assertThat(evaluator.evaluate(step(4, N1, upsert(RowChange.Kind.INSERT, N1, 2, 1L, "b"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_TRUE);
        }
    }

    @Test
    void nextCheck_reusesTheContextOfACleanOne_withoutAnythingTheEarlierScriptLeft() {
        try (ScriptEvaluator first = load("""
                import builtins, json, deja
                builtins.divmod = lambda a, b: 42
                builtins.LEAKED_BUILTIN = 1
                json.LEAK = 1
                deja.forall = lambda rows, predicate: False
                deja.LEAK = 1
                LEAKED = 5
                table("Leaked", cls="x.Leaked", columns=["a"])
                @always
                def first_only():
                    return True
                """)) {
            assertThat(first.evaluate(step(0, N1))).isEmpty();
        }
        long created = ReusableContext.created();
        try (ScriptEvaluator second = load("""
                @always
                def clean():
                    import builtins
                    import deja
                    return (divmod(7, 2) == (3, 1) and not hasattr(builtins, "LEAKED_BUILTIN")
                            and "LEAKED" not in globals() and not hasattr(__import__("json"), "LEAK")
                            and forall([1], lambda x: True) and not hasattr(deja, "LEAK"))
                """)) {
            assertThat(ReusableContext.created()).as("a context was reused, not created").isEqualTo(created);
            assertThat(second.predicateNames()).containsExactly("clean");
            assertThat(second.schemas()).as("the first script's tables are gone").extracting(TableSchema::name)
                    .containsExactly("Agent");
            assertThat(second.evaluate(step(0, N1))).isEmpty();
            assertThat(second.evaluationCounts()).containsOnlyKeys("clean").containsEntry("clean", 1L);
        }
    }

    @Test
    void contextOfACheckWithATimeout_isNotReused() {
        try (ScriptEvaluator evaluator = load("""
                @always
                def runaway():
                    while True:
                        pass
                """, Duration.ofMillis(300))) {
            assertThat(evaluator.evaluate(step(0, N1))).extracting(Finding::status).containsExactly(Finding.Status.TIMEOUT);
        }
        long created = ReusableContext.created();
        try (ScriptEvaluator next = load("@always\ndef fine():\n    return True\n")) {
            assertThat(ReusableContext.created()).isEqualTo(created + 1);
            assertThat(next.evaluate(step(0, N1))).isEmpty();
        }
    }

    @Test
    void sandbox_blocksFilesSocketsProcessesEnvironmentJavaAndThreads() {
        String[] attempts = {
            "open('/etc/hostname').read()",
            "__import__('socket').create_connection(('127.0.0.1', 9))",
            "__import__('subprocess').run(['true'])",
            "__import__('os').system('true')",
            "__import__('java').type('java.lang.System')",
            "__import__('threading').Thread(target=lambda: None).start()",
        };
        for (String attempt : attempts) {
            // Importing subprocess or socket runs a lot of Python for the first time: a generous timeout, so that a
            // busy machine cannot turn the refusal this test is about into a timeout.
            try (ScriptEvaluator evaluator = load("@always\ndef attempt():\n    " + attempt + "\n    return True\n",
                    Duration.ofSeconds(60))) {
                List<Finding> findings = evaluator.evaluate(step(0, N1));
                assertThat(findings).as(attempt).hasSize(1);
                assertThat(findings.getFirst().status()).as(attempt).isEqualTo(Finding.Status.ERROR);
            }
        }
        try (ScriptEvaluator evaluator = load("""
                import os
                @always
                def environment_is_empty():
                    return "PATH" not in os.environ and "HOME" not in os.environ
                """)) {
            assertThat(evaluator.evaluate(step(0, N1))).isEmpty();
        }
    }

    @Test
    void openSpan_keepsItsLatestAuxInPython_andARunawayAuxIsStoppedWithoutAFinding() {
        try (ScriptEvaluator evaluator = load("""
                def rounds():
                    return sorted(a.round for a in Agent)
                def hangs_above_five():
                    while sum(a.round for a in Agent) > 5:
                        pass
                    return "fine"
                @eventually(aux=[rounds, hangs_above_five])
                def empty():
                    return len(Agent) == 0
                """, Duration.ofSeconds(2))) {
            assertThat(evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
            assertThat(evaluator.latestAux("empty")).containsEntry("rounds", List.of(1L)).containsEntry("hangs_above_five", "fine");
            // The span stays open: its latest aux follows every event, also one that changes nothing.
            evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 2L, "a")));
            evaluator.evaluate(step(2, N2));
            assertThat(evaluator.latestAux("empty")).containsEntry("rounds", List.of(2L));
            assertThat(evaluator.evaluate(step(3, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 9L, "a"))))
                    .as("an aux value that runs away is no finding of the predicate").isEmpty();
            assertThat(evaluator.latestAux("empty")).containsExactly(Map.entry("aux", "<timed out>"));
            // The span ends: its latest aux stays the one of the event before.
            assertThat(evaluator.evaluate(step(4, N1, new RowChange("Agent", RowChange.Kind.DELETE, N1, 1, Map.of()))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_TRUE);
            assertThat(evaluator.latestAux("empty")).containsExactly(Map.entry("aux", "<timed out>"));
        }
    }

    @Test
    void derivedReadingOneNodesClock_isEvaluatedAtThatNodesEvents_andOthersThatChangeNothingSkipPython() {
        try (ScriptEvaluator evaluator = load("""
                @derived
                def n2_clock():
                    return now("n2")
                @always(aux=[n2_clock])
                def clock_known():
                    return n2_clock() is None or n2_clock() >= 0
                """)) {
            evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a")));
            evaluator.evaluate(step(1, N1));
            evaluator.evaluate(step(2, N2));
            evaluator.evaluate(step(3, N1));
            evaluator.evaluate(step(4, N1));

            assertThat(evaluator.evaluationCounts()).as("at the first event and at n2's").containsEntry("n2_clock", 2L);
            assertThat(evaluator.aux("clock_known")).containsEntry("n2_clock", 1002L);
            evaluator.evaluate(step(5, N2));
            assertThat(evaluator.aux("clock_known")).containsEntry("n2_clock", 1005L);
        }
    }

    @Test
    void stepsInOneCall_stopAtEachStepWithFindings_withThatStepsAux_andFindTheSameAsOneCallPerStep() {
        String script = """
                def rounds():
                    return sorted(a.round for a in Agent)
                @always(aux=[rounds])
                def below_three():
                    return forall(Agent, lambda a: a.round < 3)
                """;
        long[] rounds = {1, 2, 3, 4, 1, 5, 2};
        List<StateStep> steps = new ArrayList<>();
        for (int i = 0; i < rounds.length; i++) {
            steps.add(step(i, N1, upsert(i == 0 ? RowChange.Kind.INSERT : RowChange.Kind.UPDATE, N1, 1, rounds[i], "a")));
        }
        steps.add(step(rounds.length, N2));
        List<String> oneByOne = new ArrayList<>();
        try (ScriptEvaluator evaluator = load(script)) {
            for (StateStep step : steps) {
                for (Finding finding : evaluator.evaluate(step)) {
                    oneByOne.add(step.event().position() + " " + finding.status() + " " + evaluator.aux(finding.predicate()));
                }
            }
        }
        List<String> batched = new ArrayList<>();
        List<Integer> stops = new ArrayList<>();
        try (ScriptEvaluator evaluator = load(script)) {
            int from = 0;
            while (from < steps.size()) {
                ScriptEvaluator.Outcome outcome = evaluator.evaluate(steps, from);
                stops.add(outcome.index());
                for (Finding finding : outcome.findings()) {
                    batched.add(outcome.index() + " " + finding.status() + " " + evaluator.aux(finding.predicate()));
                }
                from = outcome.index() + 1;
            }
            assertThat(evaluator.handOvers()).as("the later calls go on with the steps Python holds").isEqualTo(1);
        }
        assertThat(oneByOne).containsExactly("2 TURNED_FALSE {rounds=[3]}", "4 TURNED_TRUE {rounds=[1]}",
                "5 TURNED_FALSE {rounds=[5]}", "6 TURNED_TRUE {rounds=[2]}");
        assertThat(batched).isEqualTo(oneByOne);
        assertThat(stops).as("one call up to each step with findings, then one for the rest").containsExactly(2, 4, 5, 6, 8);
    }

    @Test
    void stepsInOneCall_eachGetTheWholeTimeout_andARunawayIsBlamedOnItsStep() {
        try (ScriptEvaluator evaluator = load("""
                import time
                @always
                def slow():
                    began = time.monotonic()
                    while time.monotonic() - began < 0.7:
                        pass
                    while forall(Agent, lambda a: a.round == 7):
                        pass
                    return True
                """, Duration.ofMillis(1_500))) {
            List<StateStep> steps = new ArrayList<>();
            steps.add(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a")));
            for (int i = 1; i < 4; i++) {
                steps.add(step(i, N1, upsert(RowChange.Kind.UPDATE, N1, 1, (long) i + 1, "a")));
            }
            steps.add(step(4, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 7L, "a")));
            steps.add(step(5, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 8L, "a")));

            ScriptEvaluator.Outcome outcome = evaluator.evaluate(steps, 0);
            assertThat(outcome.index()).as("four steps of 0.7 s each in one call, none over the 1.5 s timeout, then the runaway")
                    .isEqualTo(4);
            assertThat(outcome.findings()).extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("slow", Finding.Status.TIMEOUT));
            ScriptEvaluator.Outcome next = evaluator.evaluate(steps, 5);
            assertThat(next.index()).as("the runaway counts as failing until it returns").isEqualTo(5);
            assertThat(next.findings()).extracting(Finding::status).containsExactly(Finding.Status.TURNED_TRUE);
        }
    }

    @Test
    void rowValues_inAnotherOrderThanDeclared_areReadByColumnName() {
        try (ScriptEvaluator evaluator = load("""
                @always
                def value_follows_round():
                    return forall(Agent, lambda a: a.value == "v%d" % a.round)
                """)) {
            Map<String, Object> reversed = new LinkedHashMap<>();
            reversed.put("value", "v3");
            reversed.put("round", 3L);
            assertThat(evaluator.evaluate(step(0, N1, new RowChange("Agent", RowChange.Kind.INSERT, N1, 1, reversed))))
                    .isEmpty();
            assertThat(evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 4L, "v3"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
        }
    }

    @Test
    void setUp_runsOnlyDejaFunctionsTheEngineNeverCompiles() {
        // Profiles the deja module's functions from the script's first line to the first event; the engine leaves
        // names containing PythonEngine.SETUP_MARK to the interpreter.
        try (ScriptEvaluator evaluator = new ScriptEvaluator("""
                import sys
                setup_calls = []
                def _profile(frame, kind, arg):
                    if kind == "call" and frame.f_code.co_filename == "deja.py":
                        if frame.f_code.co_name == "_steps":
                            sys.setprofile(None)
                        else:
                            setup_calls.append(frame.f_code.co_name)
                sys.setprofile(_profile)
                from deja import table, derived, always, eventually
                Agent = table("Agent", cls="x.Agent", columns=["round"], keep_versions={"round": 2})
                @derived
                def rounds():
                    return sorted(a.round for a in Agent)
                @derived(keep_versions=2)
                def count():
                    return len(Agent)
                def calls():
                    return sorted(set(setup_calls))
                @eventually(aux=[rounds, count])
                def empty():
                    return len(Agent) == 0
                @always(aux=[calls])
                def small():
                    return count() < 5
                """, "setup.py", Duration.ofSeconds(3), new ByteArrayOutputStream())) {
            evaluator.evaluate(step(0, N1, new RowChange("Agent", RowChange.Kind.INSERT, N1, 1, Map.of("round", 1L))));

            @SuppressWarnings("unchecked")
            List<String> calls = (List<String>) evaluator.aux("small").get("calls");
            assertThat(calls).as("deja functions run while declaring and before the first event")
                    .contains("deja_setup_table", "deja_setup_wrap", "_deja_setup_init", "_deja_setup_tables")
                    .allSatisfy(name -> assertThat(name).contains(PythonEngine.SETUP_MARK));
        }
    }

    @Test
    void openSpanWithDerivedAux_takesItAgainWhenOneChanges_andAtTheNextSpan() {
        try (ScriptEvaluator evaluator = load("""
                @derived
                def rounds():
                    return sorted(a.round for a in Agent)
                @derived
                def agents():
                    return len(Agent)
                @eventually(aux=[rounds, agents])
                def few():
                    return len(Agent) < 2
                """)) {
            evaluator.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a")));
            assertThat(evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.INSERT, N1, 2, 3L, "b"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
            assertThat(evaluator.latestAux("few")).containsEntry("rounds", List.of(1L, 3L)).containsEntry("agents", 2L);
            evaluator.evaluate(step(2, N2));
            evaluator.evaluate(step(3, N1, upsert(RowChange.Kind.UPDATE, N1, 1, 2L, "a")));
            evaluator.evaluate(step(4, N2));
            assertThat(evaluator.latestAux("few")).containsEntry("rounds", List.of(2L, 3L)).containsEntry("agents", 2L);
            assertThat(evaluator.evaluate(step(5, N1, new RowChange("Agent", RowChange.Kind.DELETE, N1, 2, Map.of()))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_TRUE);
            assertThat(evaluator.latestAux("few")).as("the span's last event's values")
                    .containsEntry("rounds", List.of(2L, 3L)).containsEntry("agents", 2L);
            assertThat(evaluator.evaluate(step(6, N1, upsert(RowChange.Kind.INSERT, N1, 3, 5L, "c"))))
                    .extracting(Finding::status).containsExactly(Finding.Status.TURNED_FALSE);
            assertThat(evaluator.latestAux("few")).containsEntry("rounds", List.of(2L, 5L)).containsEntry("agents", 2L);
        }
    }

    @Test
    void runawayPredicate_isStoppedAsTimeout_andTheContextStaysUsable() {
        try (ScriptEvaluator evaluator = load("""
                @always
                def runaway():
                    while True:
                        pass
                @always
                def after():
                    return len(Agent) == 0
                """)) {
            List<Finding> findings = evaluator.evaluate(step(0, N1));
            assertThat(findings).extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("runaway", Finding.Status.TIMEOUT));
            // the predicate after it was evaluated, and later steps work
            assertThat(evaluator.evaluate(step(1, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a"))))
                    .extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("after", Finding.Status.TURNED_FALSE));
            assertThat(evaluator.evaluationCounts()).containsEntry("runaway", 1L).containsEntry("after", 2L);
        }
    }

    @Test
    void moduleLevelLoop_isStoppedAfterTheLoadTimeout_asAScriptError_andTheNextScriptLoads() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> load("""
                while True:
                    pass
                """, Duration.ofMillis(300)))
                .isInstanceOf(ScriptException.class)
                .hasMessage("test.py: loading the script did not end within 5000 ms, so it was stopped: its module-level"
                        + " code gets the predicate timeout, and at least 5 s");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not stopped before the floor, whatever the predicate timeout")
                .isGreaterThanOrEqualTo(ScriptEvaluator.LOAD_TIMEOUT_FLOOR);
        try (ScriptEvaluator next = load("""
                @always
                def empty():
                    return len(Agent) == 0
                """, Duration.ofMillis(300))) {
            assertThat(next.evaluate(step(0, N1, upsert(RowChange.Kind.INSERT, N1, 1, 1L, "a"))))
                    .extracting(Finding::predicate, Finding::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("empty", Finding.Status.TURNED_FALSE));
        }
    }
}
