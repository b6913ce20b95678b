package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.TableSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeclaredTablesTest {
    @Test
    void guess_ofLiteralDeclarations_namesTheirTablesInOrder() {
        String script = """
                # table("Commented", cls="x.Y", columns=["a"]) is not a declaration
                from deja import table, always
                import deja

                Agent = table("Agent", cls="dev.example.PaxosNode",
                              columns=["slot", "accepted_round"],   # a comment inside the call
                              keep_versions={"accepted_round": 2})
                Lock = deja.table('Lock', 'dev.example.LockServer', ('holder', 'queue'))
                Empty = table(name=\"\"\"Empty\"\"\", columns=[], cls=r"dev.example.Idle")

                @always
                def fine():
                    \"\"\"Mentions table("Doc", cls="x.Y", columns=["a"]) in a docstring.\"\"\"
                    return len(Agent) >= 0 and "table(" != ")"
                """;
        assertThat(DeclaredTables.guess(script)).contains(List.of(
                new TableSchema("Agent", "dev.example.PaxosNode", List.of("slot", "accepted_round")),
                new TableSchema("Lock", "dev.example.LockServer", List.of("holder", "queue")),
                new TableSchema("Empty", "dev.example.Idle", List.of())));
    }

    @Test
    void guess_ofAScriptWithoutTables_isEmptyList() {
        assertThat(DeclaredTables.guess("from deja import always\n\n@always\ndef fine():\n    return True\n"))
                .contains(List.of());
    }

    @Test
    void guess_ofANonLiteralArgument_isUnknown() {
        assertThat(DeclaredTables.guess("COLUMNS = ['a']\nT = table('T', cls='x.Y', columns=COLUMNS)\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T' + 'x', cls='x.Y', columns=['a'])\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table(*ARGS)\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T', cls=f'x.{Y}', columns=['a'])\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T\\u0041', cls='x.Y', columns=['a'])\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T', cls='x.Y', columns=['a', b])\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T', cls='x.Y')\n")).isEmpty();
        assertThat(DeclaredTables.guess("T = table('T', cls='x.Y', columns=['a'], ordered=True)\n")).isEmpty();
    }

    @Test
    void guess_ofUnreadableText_isUnknown() {
        assertThat(DeclaredTables.guess("T = table('T, cls='x.Y', columns=['a'])\n")).isEmpty();
    }

    @Test
    void guess_ignoresOtherFunctionsNamedTable() {
        String script = """
                def table(*args):
                    return args
                x = other.table("X", cls="x.Y", columns=["a"])
                T = deja.table("T", cls="x.Y", columns=["a"])
                """;
        assertThat(DeclaredTables.guess(script)).contains(List.of(new TableSchema("T", "x.Y", List.of("a"))));
    }
}
