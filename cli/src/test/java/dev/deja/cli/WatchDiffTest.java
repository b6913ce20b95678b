package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.CheckReport;
import dev.deja.check.CheckedEvent;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What deja check --watch says changed between two saves of a script and two reports. */
class WatchDiffTest {
    private static final String SCRIPT = """
            from deja import table, derived, always, eventually

            Agent = table("Agent", cls="dev.deja.examples.paxos.PaxosNode",
                          columns=["slot", "accepted_round"])

            @derived(keep_versions=2)
            def decision():
                # the latest round
                return max((a.accepted_round for a in Agent), default=0)

            @always(aux=[decision,
                         decision])
            def never_negative():
                return decision() >= 0

            @eventually
            def settles():
                return True
            """;

    @Test
    void declarations_ofAScript_areItsTopLevelStatementsWithTheirDecorators() {
        var declarations = WatchDiff.declarations(SCRIPT);
        assertThat(declarations.keySet()).containsExactly("Agent", "decision", "never_negative", "settles");
        assertThat(declarations.get("Agent").kind()).isEqualTo("table");
        assertThat(declarations.get("Agent").text()).endsWith("columns=[\"slot\", \"accepted_round\"])");
        assertThat(declarations.get("decision").kind()).isEqualTo("derived");
        assertThat(declarations.get("never_negative").kind()).isEqualTo("always");
        assertThat(declarations.get("never_negative").text()).startsWith("@always(aux=[decision,").endsWith(">= 0");
        assertThat(declarations.get("settles").kind()).isEqualTo("eventually");
    }

    @Test
    void changed_namesEditedAddedAndRemovedDeclarations_andNotThoseOnlyMoved() {
        String edited = SCRIPT.replace("decision() >= 0", "decision() > 0")
                .replace("\n@eventually\ndef settles():\n    return True\n", "\n@always\ndef fresh():\n    return True\n")
                .replace("# the latest round", "# the latest round\n    # (a comment inside)");
        assertThat(WatchDiff.changed(SCRIPT, edited)).containsExactly("decision (derived)", "never_negative (always)",
                "fresh (always, new)", "settles (eventually, removed)");
        assertThat(WatchDiff.changed(SCRIPT, "\n\n" + SCRIPT)).isEmpty();
    }

    @Test
    void print_saysWhichFindingsAppearedAndDisappeared_andTheTime() {
        Violation kept = violation("never_negative", 10);
        Violation gone = violation("never_negative", 20);
        Violation fresh = violation("settles", 30);
        StringWriter text = new StringWriter();
        WatchDiff.print(SCRIPT, SCRIPT.replace("> 0", ">= 0"), report(kept, gone), report(kept, fresh),
                1_234_000_000L, new PrintWriter(text));
        assertThat(text.toString()).isEqualTo("""
                deja check: changed since the last check: nothing in the declarations
                deja check: 1 finding(s) appeared, 1 disappeared, 1 unchanged
                  + 30 n1 settles VIOLATED
                  - 20 n1 never_negative VIOLATED
                deja check: re-checked in 1.23 s
                """);
    }

    private static CheckReport report(Violation... violations) {
        return new CheckReport("t", "s.py", 100, false, List.of(violations));
    }

    private static Violation violation(String predicate, long position) {
        CheckedEvent event = new CheckedEvent(position, new NodeId("n1"), 1, position, position, 0, "receive",
                Optional.empty(), Optional.empty());
        return new Violation(predicate, Violation.Kind.ALWAYS, Violation.Status.VIOLATED, event, Optional.empty(),
                Map.of(), Map.of(), "");
    }
}
