package dev.deja.check.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.check.internal.ScriptEvaluator.GlobalName;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a predicate's fingerprint covers: its declaration and what it reaches, not lines, comments or the others. */
class PredicateFingerprintsTest {
    private static final String SCRIPT = """
            from deja import table, derived, always, event
            Agent = table("Agent", cls="x.Agent", columns=["round"])
            Peer = table("Peer", cls="x.Peer", columns=["items"])
            LIMIT = 3
            seen = []

            def helper(a):
                return a.round < LIMIT

            @derived
            def rounds():
                return [a.round for a in Agent]

            @always
            def small():
                return all(helper(a) for a in Agent)

            @always
            def few():
                return len(rounds()) < 10

            @always
            def peers():
                return len(Peer) < 5

            @always
            def recorded():
                seen.append(len(Peer))
                return True

            @always
            def uses_seen():
                return len(seen) < 100

            @always
            def late():
                return event.position < 1000
            """;
    private static final List<GlobalName> GLOBALS = List.of(
            new GlobalName("table", "other", null), new GlobalName("derived", "other", null),
            new GlobalName("always", "other", null), new GlobalName("event", "builtin", null),
            new GlobalName("Agent", "table", "Agent"), new GlobalName("Peer", "table", "Peer"),
            new GlobalName("LIMIT", "other", null), new GlobalName("seen", "mutable", null),
            new GlobalName("helper", "other", null), new GlobalName("rounds", "derived", "rounds"),
            new GlobalName("small", "predicate", "small"), new GlobalName("few", "predicate", "few"),
            new GlobalName("peers", "predicate", "peers"), new GlobalName("recorded", "predicate", "recorded"),
            new GlobalName("uses_seen", "predicate", "uses_seen"), new GlobalName("late", "predicate", "late"));

    private static Map<String, PredicateFingerprints.Fingerprint> of(String script) {
        return PredicateFingerprints.of(script, "s.py", GLOBALS, "timeout 10000 ms", "engine");
    }

    private static String code(String script, String predicate) {
        return of(script).get(predicate).code();
    }

    @Test
    void of_movedDeclarationsAndComments_changeNoFingerprint_butTheLines() {
        String moved = "# a comment\n\n" + SCRIPT.replace("\n@always\ndef late", "\n\n# late ones\n@always\ndef late");
        for (String predicate : List.of("small", "few", "peers", "recorded", "uses_seen", "late")) {
            assertThat(code(moved, predicate)).as(predicate).isEqualTo(code(SCRIPT, predicate));
        }
        assertThat(of(moved).get("late").lines()).isNotEqualTo(of(SCRIPT).get("late").lines());
    }

    @Test
    void of_editedHelper_changesThePredicatesThatReachIt_only() {
        String edited = SCRIPT.replace("return a.round < LIMIT", "return a.round <= LIMIT");
        assertThat(code(edited, "small")).isNotEqualTo(code(SCRIPT, "small"));
        for (String predicate : List.of("few", "peers", "recorded", "uses_seen", "late")) {
            assertThat(code(edited, predicate)).as(predicate).isEqualTo(code(SCRIPT, predicate));
        }
    }

    @Test
    void of_editedConstant_changesItsReaders() {
        String edited = SCRIPT.replace("LIMIT = 3", "LIMIT = 4");
        assertThat(code(edited, "small")).isNotEqualTo(code(SCRIPT, "small"));
        assertThat(code(edited, "few")).isEqualTo(code(SCRIPT, "few"));
    }

    @Test
    void of_predicatesSharingAMutableGlobal_changeTogether() {
        String edited = SCRIPT.replace("seen.append(len(Peer))", "seen.append(len(Peer) + 1)");
        assertThat(code(edited, "uses_seen")).isNotEqualTo(code(SCRIPT, "uses_seen"));
        assertThat(code(edited, "peers")).isEqualTo(code(SCRIPT, "peers"));
    }

    @Test
    void of_tellsTablesDerivedValuesAndBuiltinsReached() {
        Map<String, PredicateFingerprints.Fingerprint> prints = of(SCRIPT);
        assertThat(prints.get("few").tables()).containsExactly("Agent");
        assertThat(prints.get("few").derived()).containsExactly("rounds");
        assertThat(prints.get("few").readsBuiltins()).isFalse();
        assertThat(prints.get("peers").tables()).containsExactly("Peer");
        assertThat(prints.get("late").readsBuiltins()).isTrue();
    }

    @Test
    void of_dynamicAccess_coversTheWholeScriptAndEveryTable() {
        String dynamic = SCRIPT + "\n@always\ndef sneaky():\n    return globals()['LIMIT'] > 0\n";
        List<GlobalName> globals = new java.util.ArrayList<>(GLOBALS);
        globals.add(new GlobalName("sneaky", "predicate", "sneaky"));
        Map<String, PredicateFingerprints.Fingerprint> before = PredicateFingerprints.of(dynamic, "s.py", globals, "t", "e");
        Map<String, PredicateFingerprints.Fingerprint> after = PredicateFingerprints.of(
                dynamic.replace("len(Peer) < 5", "len(Peer) < 6"), "s.py", globals, "t", "e");
        assertThat(after.get("sneaky").code()).isNotEqualTo(before.get("sneaky").code());
        assertThat(before.get("sneaky").tables()).containsExactlyInAnyOrder("Agent", "Peer");
        assertThat(before.get("sneaky").readsBuiltins()).isTrue();
    }

    @Test
    void of_derivedValue_hasAFingerprintOfWhatItReaches() {
        String edited = SCRIPT.replace("return len(rounds()) < 10", "return len(rounds()) < 11");
        assertThat(of(SCRIPT).get("rounds").derived()).containsExactly("rounds");
        assertThat(of(SCRIPT).get("rounds").tables()).containsExactly("Agent");
        assertThat(code(edited, "rounds")).as("a reader's edit").isEqualTo(code(SCRIPT, "rounds"));
        String changed = SCRIPT.replace("[a.round for a in Agent]", "[a.round + 1 for a in Agent]");
        assertThat(code(changed, "rounds")).isNotEqualTo(code(SCRIPT, "rounds"));
        assertThat(code(changed, "few")).isNotEqualTo(code(SCRIPT, "few"));
    }

    @Test
    void reach_servedDerivedValue_hidesWhatOnlyItReaches() {
        PredicateFingerprints.Reach served = PredicateFingerprints.reach(SCRIPT, GLOBALS, List.of("few"), java.util.Set.of("rounds"));
        assertThat(served.tables()).isEmpty();
        assertThat(served.derived()).isEmpty();
        assertThat(served.builtins()).isFalse();
        PredicateFingerprints.Reach evaluated = PredicateFingerprints.reach(SCRIPT, GLOBALS, List.of("few", "late"), java.util.Set.of());
        assertThat(evaluated.tables()).containsExactly("Agent");
        assertThat(evaluated.derived()).containsExactly("rounds");
        assertThat(evaluated.builtins()).isTrue();
    }

    @Test
    void reach_withoutDecorators_leavesOutWhatOnlyTheAuxValuesRead() {
        String script = """
                from deja import table, derived, eventually
                Agent = table("Agent", cls="x.Agent", columns=["round"])

                @derived
                def rounds():
                    return [a.round for a in Agent]

                @derived
                def clock():
                    return 0

                def since():
                    return clock()

                @eventually(aux=[since,
                                 rounds])
                def settled():
                    return not rounds()

                @eventually(aux=[since])
                def ticking():
                    return since() < 10

                def wrapped(fn):
                    return lambda: fn() and clock() >= 0

                @eventually(aux=[rounds, lambda: "]" + str(rounds())])
                @wrapped
                def wrapped_settled():
                    return not rounds()
                """;
        List<GlobalName> globals = List.of(new GlobalName("table", "other", null),
                new GlobalName("derived", "other", null), new GlobalName("eventually", "other", null),
                new GlobalName("Agent", "table", "Agent"), new GlobalName("rounds", "derived", "rounds"),
                new GlobalName("clock", "derived", "clock"), new GlobalName("since", "other", null),
                new GlobalName("settled", "predicate", "settled"), new GlobalName("ticking", "predicate", "ticking"),
                new GlobalName("wrapped", "other", null),
                new GlobalName("wrapped_settled", "predicate", "wrapped_settled"));
        java.util.Set<String> served = java.util.Set.of("rounds", "clock");
        assertThat(PredicateFingerprints.reach(script, globals, List.of("settled"), served).served())
                .containsExactlyInAnyOrder("rounds", "clock");
        assertThat(PredicateFingerprints.reach(script, globals, List.of("settled"), served, false).served())
                .containsExactly("rounds");
        // A helper the body calls is read by the evaluation, whatever the aux values read too.
        assertThat(PredicateFingerprints.reach(script, globals, List.of("ticking"), served, false).served())
                .containsExactly("clock");
        // A decorator of the user's own wraps the evaluation: what it reads counts, only the aux list is left out.
        assertThat(PredicateFingerprints.reach(script, globals, List.of("wrapped_settled"), served, false).served())
                .containsExactlyInAnyOrder("rounds", "clock");
    }

    @Test
    void withoutAux_leavesOutTheAuxArgumentsOnly() {
        assertThat(PredicateFingerprints.withoutAux("@eventually(aux=[a, (b, c), lambda: d(\"]\")], threshold=t)\n@w"))
                .isEqualTo("@eventually(, threshold=t)\n@w");
        assertThat(PredicateFingerprints.withoutAux("@always(aux = (x,))")).isEqualTo("@always()");
        assertThat(PredicateFingerprints.withoutAux("@always(aux=helpers)")).isEqualTo("@always()");
        assertThat(PredicateFingerprints.withoutAux("@eventually(aux=tracked(p, \",)\"), threshold=t)"))
                .isEqualTo("@eventually(, threshold=t)");
        assertThat(PredicateFingerprints.withoutAux("@always(aux == x)")).isEqualTo("@always(aux == x)");
    }

    @Test
    void reach_followsDerivedValuesMadeInHelpers_toTheCodeThatMadeThem() {
        String script = """
                from deja import table, derived, eventually
                Agent = table("Agent", cls="x.Agent", columns=["round"])

                @derived
                def rounds():
                    return [a.round for a in Agent]

                @derived
                def clock():
                    return 0

                def tracked(problems):
                    def since():
                        return clock() if problems() else 0
                    started = derived(since)
                    return [lambda: started()]

                @eventually(aux=tracked(rounds))
                def settled():
                    return not rounds()

                def counted(fn):
                    made = derived(lambda: clock())
                    return lambda: fn() and made() >= 0

                @counted
                def wrapped():
                    return True
                """;
        List<GlobalName> globals = List.of(new GlobalName("table", "other", null),
                new GlobalName("derived", "other", null), new GlobalName("eventually", "other", null),
                new GlobalName("Agent", "table", "Agent"), new GlobalName("rounds", "derived", "rounds"),
                new GlobalName("clock", "derived", "clock"), new GlobalName("tracked", "other", null),
                new GlobalName("settled", "predicate", "settled"), new GlobalName("counted", "other", null),
                new GlobalName("wrapped", "predicate", "wrapped"),
                // As the evaluator lists them: their function's first line, then the frames that made them.
                new GlobalName("@since:13:15,18", "derived", "since"),
                new GlobalName("@made:23:23,26", "derived", "made"));
        java.util.Set<String> served = java.util.Set.of("rounds", "clock", "since", "made");
        // The aux argument's helper made since: evaluating the predicate does not read it, taking aux values does.
        assertThat(PredicateFingerprints.reach(script, globals, List.of("settled"), served).served())
                .containsExactlyInAnyOrder("rounds", "since", "clock");
        assertThat(PredicateFingerprints.reach(script, globals, List.of("settled"), served, false).served())
                .containsExactly("rounds");
        // Made by a wrapper that runs at every evaluation: read by it.
        assertThat(PredicateFingerprints.reach(script, globals, List.of("wrapped"), served, false).served())
                .containsExactlyInAnyOrder("made", "clock");
        // What since reads is what the code that made it reads: its helper and the decorator that called it.
        assertThat(PredicateFingerprints.reach(script, globals, List.of("since"), java.util.Set.of()).derived())
                .containsExactlyInAnyOrder("since", "rounds", "clock");
        // Its fingerprint does not cover the body of the predicate whose decorator made it, but covers its decorator.
        String edited = script.replace("return not rounds()", "return len(rounds()) == 0");
        String other = script.replace("aux=tracked(rounds)", "aux=tracked(rounds) or []");
        var before = PredicateFingerprints.of(script, "s.py", globals, "", "e");
        assertThat(PredicateFingerprints.of(edited, "s.py", globals, "", "e").get("since").code())
                .isEqualTo(before.get("since").code());
        assertThat(PredicateFingerprints.of(edited, "s.py", globals, "", "e").get("settled").code())
                .isNotEqualTo(before.get("settled").code());
        assertThat(PredicateFingerprints.of(other, "s.py", globals, "", "e").get("since").code())
                .isNotEqualTo(before.get("since").code());
        // A line added above the code that made it moves it, as the evaluator then lists it: the same fingerprint.
        String moved = "# a comment\n" + script;
        List<GlobalName> movedGlobals = globals.stream().map(g -> g.name().equals("@since:13:15,18")
                ? new GlobalName("@since:14:16,19", "derived", "since")
                : g.name().equals("@made:23:23,26") ? new GlobalName("@made:24:24,27", "derived", "made") : g).toList();
        assertThat(PredicateFingerprints.of(moved, "s.py", movedGlobals, "", "e").get("since").code())
                .isEqualTo(before.get("since").code());
    }

    @Test
    void literal_acceptsWhatReprWritesOfLiterals_only() {
        for (String text : List.of("{0: 'v1', 1: \"it's\"}", "[(1, 2.5e-07), None, True, False, -3, 1j]",
                "{'a': {(0, 'x'): [b'\\x00']}}", "{1, 2}", "()", "'a\\'b'", "set()",
                "{'o1': ('n1', frozenset({'n2', 'n3'}), None)}", "frozenset()")) {
            assertThat(ScriptEvaluator.literal(text)).as(text).isTrue();
        }
        for (String text : List.of("Agent(node='n1')", "().__class__", "open('x')", "1 * 2", "'open", "set",
                "frozenset", "(frozenset)", "settings()", "nan", "__import__('os')")) {
            assertThat(ScriptEvaluator.literal(text)).as(text).isFalse();
        }
    }

    @Test
    void scalar_readsIntegersBooleansNoneAndPlainStrings_andLeavesTheRestToPython() {
        assertThat(ScriptEvaluator.scalar("0")).isEqualTo(0L);
        assertThat(ScriptEvaluator.scalar("-42")).isEqualTo(-42L);
        assertThat(ScriptEvaluator.scalar("999999999999999999")).isEqualTo(999_999_999_999_999_999L);
        assertThat(ScriptEvaluator.scalar("True")).isEqualTo(Boolean.TRUE);
        assertThat(ScriptEvaluator.scalar("False")).isEqualTo(Boolean.FALSE);
        assertThat(ScriptEvaluator.scalar("None")).isNull();
        assertThat(ScriptEvaluator.scalar("'n1: ok'")).isEqualTo("n1: ok");
        assertThat(ScriptEvaluator.scalar("\"it's\"")).isEqualTo("it's");
        assertThat(ScriptEvaluator.scalar("'\u00e9'")).isEqualTo("\u00e9");
        assertThat(ScriptEvaluator.scalar("''")).isEqualTo("");
        // Beyond a long, floats (repr's own spelling), escapes, bytes and containers: Python reads them.
        for (String text : List.of("1000000000000000000000", "2.5", "1e-07", "'a\\tb'", "'a\\'b'", "b'x'", "(1,)",
                "[1]", "{}", "set()", "1j", "007")) {
            assertThat(ScriptEvaluator.scalar(text)).as(text).isSameAs(ScriptEvaluator.NOT_SCALAR);
        }
    }

    @Test
    void of_changedSettings_changeEveryFingerprint() {
        Map<String, PredicateFingerprints.Fingerprint> other = PredicateFingerprints.of(SCRIPT, "s.py", GLOBALS,
                "timeout 11000 ms", "engine");
        assertThat(other.get("peers").code()).isNotEqualTo(code(SCRIPT, "peers"));
    }

    /** A derived value that keeps state in a mutable global, as the lock server's enough_time does. */
    private static final String MUTABLE = """
            from deja import table, derived, always
            Agent = table("Agent", cls="x.Agent", columns=["round"])
            _size = {"size": 0, "changes": 0}

            def grow(n):
                _size["size"], _size["changes"] = n, _size["changes"] + 1

            @derived
            def rounds():
                return [a.round for a in Agent]

            @derived
            def changes():
                n = len(rounds())
                if n != _size["size"]:
                    grow(n)
                return _size["changes"]

            @derived
            def suspect():
                return changes() > 2

            @always(aux=[changes, suspect])
            def queue():
                return len(rounds()) < 5

            @always
            def pokes():
                return _size["size"] >= 0
            """;
    private static final List<GlobalName> MUTABLE_GLOBALS = List.of(
            new GlobalName("table", "other", null), new GlobalName("derived", "other", null),
            new GlobalName("always", "other", null), new GlobalName("Agent", "table", "Agent"),
            new GlobalName("_size", "mutable", null), new GlobalName("grow", "other", null),
            new GlobalName("rounds", "derived", "rounds"), new GlobalName("changes", "derived", "changes"),
            new GlobalName("suspect", "derived", "suspect"), new GlobalName("queue", "predicate", "queue"),
            new GlobalName("pokes", "predicate", "pokes"));

    private static String mutableCode(String script, String declared) {
        return PredicateFingerprints.of(script, "s.py", MUTABLE_GLOBALS, "t", "e").get(declared).code();
    }

    @Test
    void of_readerOfAMutableGlobalThroughDerivedValuesOnly_editedAlone_changesNoDerivedValue() {
        String edited = MUTABLE.replace("return len(rounds()) < 5", "unused = 0\n    return len(rounds()) < 5");
        assertThat(mutableCode(edited, "queue")).isNotEqualTo(mutableCode(MUTABLE, "queue"));
        for (String declared : List.of("rounds", "changes", "suspect", "pokes")) {
            assertThat(mutableCode(edited, declared)).as(declared).isEqualTo(mutableCode(MUTABLE, declared));
        }
    }

    @Test
    void of_editedToucherOfAMutableGlobal_changesEverythingThatReachesIt() {
        String edited = MUTABLE.replace("return _size[\"size\"] >= 0", "return _size[\"size\"] >= -1");
        for (String declared : List.of("pokes", "changes", "suspect", "queue")) {
            assertThat(mutableCode(edited, declared)).as(declared).isNotEqualTo(mutableCode(MUTABLE, declared));
        }
        assertThat(mutableCode(edited, "rounds")).isEqualTo(mutableCode(MUTABLE, "rounds"));
        String helper = MUTABLE.replace("_size[\"changes\"] + 1", "_size[\"changes\"] + 2");
        for (String declared : List.of("pokes", "changes", "suspect", "queue")) {
            assertThat(mutableCode(helper, declared)).as(declared).isNotEqualTo(mutableCode(MUTABLE, declared));
        }
    }

    @Test
    void touchers_areTheDeclarationsReachingAMutableGlobalOutsideOtherDerivedValues() {
        Map<String, PredicateFingerprints.Fingerprint> prints = PredicateFingerprints.of(MUTABLE, "s.py",
                MUTABLE_GLOBALS, "t", "e");
        assertThat(PredicateFingerprints.touchers(prints)).containsOnlyKeys("_size");
        assertThat(PredicateFingerprints.touchers(prints).get("_size")).containsExactly("changes", "pokes");
    }

    @Test
    void reach_tellsTheMutableGlobalsReachedOtherThanThroughServedDerivedValues() {
        assertThat(PredicateFingerprints.reach(MUTABLE, MUTABLE_GLOBALS, List.of("queue"), java.util.Set.of())
                .mutables()).containsExactly("_size");
        assertThat(PredicateFingerprints.reach(MUTABLE, MUTABLE_GLOBALS, List.of("queue"),
                java.util.Set.of("changes", "suspect")).mutables()).isEmpty();
        assertThat(PredicateFingerprints.reach(MUTABLE, MUTABLE_GLOBALS, List.of("changes"),
                java.util.Set.of("changes")).derived()).as("a root is evaluated").contains("changes");
    }

    @Test
    void names_leaveOutCommentsAndStrings_butNotFieldsOfFStrings() {
        String code = "def f(a):\n    \"\"\"Like few, at 1e5.\"\"\"\n    # seen here\n"
                + "    return f\"{LIMIT:>3}\" + 'peers' + rb'\\'uses_seen' + a.round + 2e5\n";
        assertThat(PredicateFingerprints.names(code)).contains("def", "f", "a", "return", "LIMIT", "round")
                .doesNotContain("Like", "few", "seen", "here", "peers", "uses_seen", "e5", "rb");
    }

    @Test
    void of_predicateNamedInAnotherOnesDocstring_changesOnlyItsOwnFingerprint() {
        String documented = SCRIPT.replace("def late():\n", "def late():\n    \"\"\"Unlike peers, reads the event.\"\"\"\n");
        String edited = documented.replace("len(Peer) < 5", "len(Peer) < 6");
        assertThat(code(edited, "peers")).isNotEqualTo(code(documented, "peers"));
        assertThat(code(edited, "late")).isEqualTo(code(documented, "late"));
    }
}
