package dev.deja.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The benchmark's edit of one predicate: after its docstring, in its first predicate only. */
class OneShotChecksTest {
    @Test
    void editOnePredicate_multiLineDocstring_addsAnAssignmentAfterIt() {
        String script = "from deja import always, derived\n\n@derived\ndef d():\n    return 1\n\n"
                + "@always(aux=[d])\ndef first():\n    \"\"\"Holds.\n    Always.\"\"\"\n    return d() == 1\n\n"
                + "@always\ndef second():\n    return True\n";

        OneShotChecks.Edit edit = OneShotChecks.editOnePredicate(script);

        assertThat(edit.predicate()).isEqualTo("first");
        assertThat(edit.script()).isEqualTo(script.replace("    Always.\"\"\"\n",
                "    Always.\"\"\"\n    edited_for_the_benchmark = 0\n"));
    }

    @Test
    void editOnePredicate_oneLineDocstringOrNone_addsItAfterTheDocstringOrFirst() {
        assertThat(OneShotChecks.editOnePredicate("@eventually\ndef p():\n    '''Soon.'''\n    return x\n").script())
                .isEqualTo("@eventually\ndef p():\n    '''Soon.'''\n    edited_for_the_benchmark = 0\n    return x\n");
        assertThat(OneShotChecks.editOnePredicate("@always\ndef p():\n\n  return x\n").script())
                .isEqualTo("@always\ndef p():\n\n  edited_for_the_benchmark = 0\n  return x\n");
    }

    @Test
    void editOnePredicate_noPredicate_isRefused() {
        assertThatThrownBy(() -> OneShotChecks.editOnePredicate("x = 1\n")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void editOnePredicate_everyShippedScript_editsAPredicateItDeclares() throws IOException {
        try (var scripts = Files.list(Path.of(System.getProperty("user.dir")).getParent().resolve("scripts"))) {
            for (Path script : scripts.filter(p -> p.toString().endsWith(".py")).toList()) {
                String text = Files.readString(script);
                OneShotChecks.Edit edit = OneShotChecks.editOnePredicate(text);
                assertThat(text).as(script.toString()).contains("def " + edit.predicate() + "(");
                assertThat(edit.script().lines().filter(l -> l.strip().equals("edited_for_the_benchmark = 0")))
                        .as(script.toString()).hasSize(1);
            }
        }
    }
}
