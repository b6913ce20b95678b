package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The exactness check a derived value's texts pass before they are stored, without Python. */
class ReprTextTest {
    @Test
    void exactSets_textsAsReprWritesThem_areExactWithTheirOutermostSetsLeftToPython() {
        assertThat(ReprText.exactSets("12")).isEmpty();
        assertThat(ReprText.exactSets("(1, 'a', None, True, False, -5)")).isEmpty();
        assertThat(ReprText.exactSets("{'a': [1, (2, 3)], 'b': {}, (0, 'x'): \"it's\"}")).isEmpty();
        assertThat(ReprText.exactSets("[{1, 2}, set(), frozenset()]")).containsExactly("{1, 2}", "set()", "frozenset()");
        // A frozenset's braces and a set inside a set are part of the outer text.
        assertThat(ReprText.exactSets("{'o1': ('n1', frozenset({'n2', 'n3'}), frozenset({frozenset({1})}))}"))
                .containsExactly("frozenset({'n2', 'n3'})", "frozenset({frozenset({1})})");
    }

    @Test
    void exactSets_textsReprDoesNotWriteOrPythonReadsToAnotherValue_areLeftWholeToPython() {
        for (String text : List.of(
                "\"abc\"",                     // repr quotes with ' unless the string holds one
                "'caf\u00e9'", "'a\u0001b'",   // beyond printable ASCII: left to Python's rules
                "-0", "[-0]",                  // zero has no sign
                "[1,2]", "{1:2}", "(1)",      // repr's separators
                "{1: 'a', 1: 'b'}",            // a key twice: Python keeps the last
                "{1: 'a', True: 'b'}",         // 1 == True
                "{('a', 1): 0, ('a', True): 1}",
                "{frozenset({1, 2}): 0, frozenset({2, 1}): 1}",
                "{[1]: 0}", "{(1, [2]): 0}",  // unhashable keys
                "2.5", "'a\\tb'", "b'x'", "10000000000000000000")) {
            assertThat(ReprText.exactSets(text)).as(text).isNull();
        }
    }
}
