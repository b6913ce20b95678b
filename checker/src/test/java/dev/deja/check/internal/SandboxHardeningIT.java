package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.ScriptException;
import dev.deja.check.StateStep;
import dev.deja.check.internal.ScriptEvaluator.Finding;
import dev.deja.node.NodeId;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hardening of the predicate sandbox: the checker owns the process and the watchdog, not the script. Each test's
 * {@link Timeout} only turns a hang (the attack working) into a failure instead of a stuck build; it is no timing
 * expectation.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SandboxHardeningIT {
    private static final NodeId N1 = new NodeId("n1");
    private static final String HEADER = """
            from deja import table, always
            Agent = table("Agent", cls="x.Agent", columns=["round"])
            """;
    /** Finds the host Progress object by walking up the frames, as an attacker would. */
    private static final String FIND_PROGRESS = """
            import sys
            def find_progress():
                f = sys._getframe()
                while f is not None:
                    for name, value in f.f_locals.items():
                        if name == "progress":
                            return value
                    f = f.f_back
                raise AssertionError("no progress object on the stack")
            """;

    private static ScriptEvaluator load(String body, Duration timeout) {
        return new ScriptEvaluator(HEADER + body, "attack.py", timeout, new ByteArrayOutputStream());
    }

    private static List<StateStep> steps(int count) {
        List<StateStep> steps = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Map<String, Object> values = new LinkedHashMap<>();
            values.put("round", (long) i);
            steps.add(new StateStep(new CheckedEvent(i, N1, 1, i, i + 1, 1000 + i, "receive", Optional.empty(), Optional.empty()),
                    List.of(new RowChange("Agent", i == 0 ? RowChange.Kind.INSERT : RowChange.Kind.UPDATE, N1, 1, values))));
        }
        return steps;
    }

    /** Every finding of evaluating {@code steps} to the end, as (predicate, status, position). */
    private static List<Tuple> evaluateAll(ScriptEvaluator evaluator, List<StateStep> steps) {
        List<Tuple> out = new ArrayList<>();
        int from = 0;
        while (from < steps.size()) {
            ScriptEvaluator.Outcome outcome = evaluator.evaluate(steps, from);
            for (Finding finding : outcome.findings()) {
                out.add(new Tuple(finding.predicate(), finding.status(), (long) outcome.index()));
            }
            from = outcome.index() + 1;
        }
        return out;
    }

    @Test
    void frameWalkingPredicate_resettingTheWatchdogInALoop_isStoppedAsTimeout_andTheCheckGoesOn() {
        try (ScriptEvaluator evaluator = load(FIND_PROGRESS + """
                @always
                def starve():
                    progress = find_progress()
                    while True:
                        progress.next(0)
                @always
                def fine():
                    return Agent.get(1) is None or Agent.get(1).round >= 0
                """, Duration.ofMillis(300))) {
            List<Tuple> findings = evaluateAll(evaluator, steps(4));
            assertThat(findings).first().isEqualTo(new Tuple("starve", Finding.Status.TIMEOUT, 0L));
            assertThat(findings).extracting(t -> t.toList().get(0)).doesNotContain("fine");
        }
    }

    @Test
    void frameWalkingPredicate_reportingEveryLaterStep_isStillStopped() {
        try (ScriptEvaluator evaluator = load(FIND_PROGRESS + """
                @always
                def starve():
                    progress = find_progress()
                    i = 1
                    while True:
                        progress.next(i)
                        i += 1
                """, Duration.ofMillis(200))) {
            // Each report of the next step is honoured until the batch's steps run out, at most one timeout per step
            // of the batch; then the predicate is stopped as a TIMEOUT, or, when the stop lands after it (the
            // reports used up the call's time), the check stops with a one-line error naming the cause.
            List<Tuple> findings;
            try {
                findings = evaluateAll(evaluator, steps(3));
            } catch (ScriptException stopped) {
                // Either way a one-line error: "a predicate called the checker's progress object ..." or, when the
                // stop lands in the module's own work, "the predicate timeout (200 ms) stopped the checker's own work".
                assertThat(stopped.getMessage()).doesNotContain("\n")
                        .containsAnyOf("called the checker's progress object", "stopped the checker's own work");
                return;
            }
            assertThat(findings).extracting(t -> t.toList().get(0), t -> t.toList().get(1))
                    .contains(Tuple.tuple("starve", Finding.Status.TIMEOUT));
        }
    }

    @Test
    void signalHandler_atModuleLevel_isRefused() {
        assertThatThrownBy(() -> load("""
                import signal
                signal.signal(signal.SIGTERM, lambda *args: None)
                @always
                def p():
                    return True
                """, Duration.ofSeconds(30)))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining("PermissionError: signal.signal is not available to checker scripts");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "__import__('signal').signal(2, lambda *a: None)",
        "__import__('_signal').signal(15, lambda *a: None)",
        "__import__('signal').alarm(1)",
        "__import__('signal').setitimer(0, 1.0)",
        "__import__('signal').raise_signal(15)",
        "__import__('os').kill(1, 15)",
        "__import__('faulthandler').enable()",
    })
    void processControl_inAPredicate_isAnErrorFinding(String attempt) {
        try (ScriptEvaluator evaluator = load("@always\ndef attempt():\n    " + attempt + "\n    return True\n",
                Duration.ofSeconds(60))) {
            List<Finding> findings = evaluator.evaluate(steps(1).getFirst());
            assertThat(findings).extracting(Finding::predicate, Finding::status)
                    .containsExactly(Tuple.tuple("attempt", Finding.Status.ERROR));
            assertThat(findings.getFirst().message()).contains("PermissionError").contains("not available to checker scripts");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"__import__('sys').exit(0)", "exit(3)", "raise SystemExit(1)", "__import__('os')._exit(0)",
        "__import__('posix')._exit(0)"})
    void exitInAPredicate_isAnErrorFindingForIt_andTheCheckGoesOn(String attempt) {
        try (ScriptEvaluator evaluator = load("""
                @always
                def leaves():
                    if Agent.get(1).round == 1:
                        %s
                    return True
                @always
                def stays():
                    return Agent.get(1).round != 2
                """.formatted(attempt), Duration.ofSeconds(60))) {
            List<Tuple> findings = evaluateAll(evaluator, steps(4));
            assertThat(findings).contains(new Tuple("leaves", Finding.Status.ERROR, 1L),
                    new Tuple("stays", Finding.Status.TURNED_FALSE, 2L));
        }
    }

    @Test
    void exitWhileLoading_isAOneLineScriptError() {
        assertThatThrownBy(() -> load("import os\nos._exit(0)\n", Duration.ofSeconds(30)))
                .isInstanceOf(ScriptException.class)
                .hasMessageContaining("PermissionError: os._exit is not available to checker scripts");
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 1_000, 1_000_000})
    void tinyPredicateTimeouts_stopARunawayAsTimeout(long nanos) {
        try (ScriptEvaluator evaluator = load("""
                @always
                def runaway():
                    while Agent.get(1).round == 1:
                        pass
                    return True
                """, Duration.ofNanos(nanos))) {
            List<Tuple> findings;
            try {
                findings = evaluateAll(evaluator, steps(3));
            } catch (ScriptException stoppedOutsideThePredicate) {
                // A timeout this short may also stop the module's own work on an event, which is refused whole.
                assertThat(stoppedOutsideThePredicate).hasMessageContaining("give a longer --predicate-timeout")
                        .hasMessageNotContaining("\n");
                return;
            }
            assertThat(findings).extracting(t -> t.toList().get(1)).contains(Finding.Status.TIMEOUT);
        }
    }

    @Test
    void pid_isNotTheProcessId() {
        try (ScriptEvaluator evaluator = load("""
                import os
                @always
                def pid():
                    return os.getpid() == 1 and os.getppid() == 1
                """, Duration.ofSeconds(30))) {
            assertThat(evaluator.evaluate(steps(1).getFirst())).isEmpty();
        }
        assertThat(ProcessHandle.current().pid()).isNotEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "open('/etc/hostname').read()",
        "open('/tmp/deja-sandbox-probe', 'w').write('x')",
        "__import__('socket').create_connection(('127.0.0.1', 9))",
        "__import__('subprocess').run(['true'])",
        "__import__('os').system('true')",
        "__import__('os').listdir('/')",
        "__import__('java').type('java.lang.System')",
        "__import__('polyglot').eval(language='python', string='1')",
        "__import__('ctypes').CDLL(None)",
        "__import__('threading').Thread(target=lambda: None).start()",
        "__import__('os').environ['HOME']",
    })
    void sandboxEscapes_areErrorFindings(String attempt) {
        try (ScriptEvaluator evaluator = load("@always\ndef attempt():\n    " + attempt + "\n    return True\n",
                Duration.ofSeconds(60))) {
            assertThat(evaluator.evaluate(steps(1).getFirst())).extracting(Finding::predicate, Finding::status)
                    .containsExactly(Tuple.tuple("attempt", Finding.Status.ERROR));
        }
    }
}
