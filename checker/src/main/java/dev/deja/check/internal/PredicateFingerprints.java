package dev.deja.check.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each predicate of a script depends on, as a fingerprint: its own declaration's text and that of every global
 * it can reach (derived values, tables, helper functions, constants), the script's other top-level statements
 * (imports...), the settings that change findings and the checker's own version. Two checks of the same stored
 * history whose predicate has the same fingerprint find the same findings for it, so a re-check can reuse them.
 *
 * <p>A declaration is a top-level statement with the decorators above it ({@code def}, {@code class} or an
 * assignment to one name); it refers to every global whose name occurs in its code, outside comments and strings but
 * for f-strings' fields (an over-approximation: an attribute spelled like a global only makes the fingerprint change
 * more often). What a predicate can reach is the closure of that relation. The rest of the script (imports, other statements, a
 * declaration split by a line in the first column inside a multi-line string) is part of every fingerprint. A
 * declaration whose text names a way to reach globals without naming them ({@code globals}, {@code eval},
 * {@code getattr}...) gets the whole script's text instead.
 *
 * <p><b>Mutable globals.</b> Declarations that run code touching the same mutable global (a list, dict, set or object)
 * may depend on each other's evaluations. A declaration <em>touches</em> the mutable globals it reaches directly:
 * through its own text and the helper functions and constants it reaches, not descending into the other derived
 * values it reaches. Each mutable global has a group digest made of the fingerprint bases (the text digests above)
 * of all its touchers, and each fingerprint covers the group digest of every mutable global in its full closure
 * (through derived values too). So editing any toucher of a global changes the fingerprint of everything that reaches
 * that global through any chain, while a declaration that reaches it only through derived values can be edited
 * without changing theirs. That is sound because a derived value's values cannot depend on the declarations that
 * merely read it: derived values are refreshed in a fixed order, before the predicates, until none is due, and at
 * most once per step (so a reader's call gets the step's memoized value and never makes it run at another time);
 * and a reader that does not touch the global runs no code that changes it. (It assumes, as serving any derived
 * value does, that a reader does not change in place the value a derived value returned.) A re-check that evaluates
 * one toucher of a global evaluates all of them ({@link #touchers}). Derived values made inside a helper function
 * have no global name and so no fingerprint: a re-check refreshes them as a check of every predicate does.
 *
 * <p>Line numbers are not part of the fingerprint, since moving a declaration does not change findings, except for
 * error findings, whose tracebacks show lines: {@link Fingerprint#lines()} is the start line of every declaration
 * reached, which a result with an error finding must also match to be reused.
 */
public final class PredicateFingerprints {
    private static final Pattern DEF = Pattern.compile("^(?:async\\s+)?(?:def|class)\\s+([A-Za-z_]\\w*)");
    private static final Pattern AUX = Pattern.compile("\\baux\\s*=(?!=)");
    private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Za-z_]\\w*)\\s*(?::[^=]*)?=(?!=)");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");
    private static final Set<String> DYNAMIC = Set.of("globals", "vars", "locals", "eval", "exec", "compile",
            "getattr", "setattr", "delattr", "__import__", "importlib", "sys", "__dict__", "__globals__");
    /** Changes whenever what a fingerprint covers or how findings are made changes. */
    private static final String VERSION = "deja-predicate-fingerprint 3";

    /**
     * One predicate's fingerprint and what it reads.
     *
     * @param code          the fingerprint (SHA-256, hex)
     * @param lines         the script's file name and the start lines of the declarations it reaches, which error
     *                      findings show
     * @param tables        the names of the tables it can reach
     * @param derived       the names of the derived values it can reach
     * @param readsBuiltins whether it can reach the event built-ins, {@code nodes}, {@code now} or {@code stats}
     *                      (or whether what it reaches cannot be told from its text)
     * @param touches       the mutable globals it reaches directly (not through other derived values), by name
     */
    public record Fingerprint(String code, String lines, Set<String> tables, Set<String> derived,
                              boolean readsBuiltins, Set<String> touches) {
    }

    /**
     * A top-level statement: the global it declares (or null), its first line, its text, that without aux arguments,
     * and the line of its {@code def} or {@code class} (its first line for another statement).
     */
    private record Block(String name, int line, String text, String undecorated, int defLine) {
        /** Whether {@code number} (a line of the script) is one of its lines. */
        boolean holds(int number) {
            return number >= line && number < line + text.split("\n", -1).length;
        }

        /** The text of its decorators ({@code defLine} excluded). */
        String decorators() {
            return String.join("\n", java.util.Arrays.asList(text.split("\n", -1)).subList(0, defLine - line));
        }
    }

    /**
     * A derived value made in a helper, which the evaluator lists under a name no identifier has (see
     * {@code _deja_setup_globals}): the text of what made it, the blocks whose code can hold it (its function's and
     * those of the frames that made it) and, of those, the predicates that can read it when evaluated, not only
     * through aux values.
     */
    private record Made(String text, Set<String> holders, Set<String> evaluatedBy) {
    }

    private PredicateFingerprints() {
    }

    /**
     * What some predicates and derived values can reach when the derived values in {@code served} are not evaluated
     * (their values come from elsewhere): what they reach through those is left out.
     *
     * @param tables   the names of the tables they can reach
     * @param derived  the names of the derived values they can reach, but for the served ones
     * @param builtins whether they can reach the event built-ins, {@code nodes}, {@code now} or {@code stats}, or what
     *                 they reach cannot be told from their text
     * @param mutables the mutable globals they can reach, by global name (all of them when what they reach cannot be
     *                 told from their text)
     * @param served   the served derived values they can read directly, not through other served ones (all of them
     *                 when what they reach cannot be told from their text): the only ones whose values they can see
     */
    public record Reach(Set<String> tables, Set<String> derived, boolean builtins, Set<String> mutables,
                        Set<String> served) {
    }

    /**
     * What the predicates and derived values declared as {@code roots} can reach, not going through the derived values
     * declared as {@code served} (see {@link Reach}); a root is never taken as served.
     */
    public static Reach reach(String script, List<ScriptEvaluator.GlobalName> globals, java.util.Collection<String> roots,
                              Set<String> served) {
        return reach(script, globals, roots, served, true);
    }

    /**
     * Like {@link #reach(String, List, java.util.Collection, Set)}, but without what the aux lists of the root
     * predicates' decorators name ({@code decorators} false): what evaluating them reads, not what their aux values
     * read (the callables of {@code aux=[...]}, which are called only to take aux values).
     */
    public static Reach reach(String script, List<ScriptEvaluator.GlobalName> globals, java.util.Collection<String> roots,
                              Set<String> served, boolean decorators) {
        Parsed parsed = parsed(script, globals);
        List<Block> blocks = parsed.blocks();
        Map<String, Made> made = parsed.made();
        Map<String, Set<String>> refers = new HashMap<>(parsed.refers());
        if (!decorators) {
            Set<String> rootGlobals = new java.util.HashSet<>();
            globals.stream().filter(g -> "predicate".equals(g.what()) && g.declared() != null
                    && roots.contains(g.declared())).forEach(g -> rootGlobals.add(g.name()));
            Map<String, Set<String>> bodies = new HashMap<>();
            for (Block block : blocks) {
                if (block.name() != null && rootGlobals.contains(block.name())) {
                    bodies.computeIfAbsent(block.name(), n -> new TreeSet<>()).addAll(names(block.undecorated()));
                }
            }
            made.forEach((name, value) -> value.evaluatedBy().forEach(reader -> {
                if (bodies.containsKey(reader)) {
                    bodies.get(reader).add(name);
                }
            }));
            refers.putAll(bodies);
        }
        Map<String, ScriptEvaluator.GlobalName> byName = new LinkedHashMap<>();
        globals.forEach(g -> byName.put(g.name(), g));
        Set<String> tables = new TreeSet<>();
        Set<String> derived = new TreeSet<>();
        Set<String> mutables = new TreeSet<>();
        Set<String> servedRead = new TreeSet<>();
        boolean builtins = false;
        boolean dynamic = false;
        Set<String> rootNames = new java.util.HashSet<>();
        for (String root : roots) {
            String name = globals.stream().filter(g -> ("predicate".equals(g.what()) || "derived".equals(g.what()))
                            && root.equals(g.declared()))
                    .map(ScriptEvaluator.GlobalName::name).findFirst().orElse(null);
            if (name == null) {
                builtins = true;
                dynamic = true;
            } else {
                rootNames.add(name);
            }
        }
        // A dynamic name says it all; a served derived value (not a root) has its values from elsewhere.
        Set<String> reached = walk(rootNames, refers, byName, name -> {
            if (DYNAMIC.contains(name)) {
                return true;
            }
            ScriptEvaluator.GlobalName global = byName.get(name);
            return global != null && "derived".equals(global.what()) && served.contains(global.declared())
                    && !rootNames.contains(name);
        });
        for (String name : reached) {
            if (DYNAMIC.contains(name)) {
                builtins = true;
                dynamic = true;
                continue;
            }
            ScriptEvaluator.GlobalName global = byName.get(name);
            if (global != null) {
                switch (global.what()) {
                    case "table" -> tables.add(global.declared());
                    case "derived" -> {
                        if (!served.contains(global.declared()) || rootNames.contains(name)) {
                            derived.add(global.declared());
                        } else {
                            servedRead.add(global.declared());
                        }
                    }
                    case "builtin" -> builtins = true;
                    case "mutable" -> mutables.add(name);
                    default -> { }
                }
            }
        }
        if (dynamic) {
            globals.stream().filter(g -> "mutable".equals(g.what())).forEach(g -> mutables.add(g.name()));
            servedRead.addAll(served);
        }
        return new Reach(tables, derived, builtins, mutables, servedRead);
    }

    /**
     * The declarations (predicates and derived values, by declared name) that touch each mutable global, by its global
     * name: those that run code naming it (see {@link Fingerprint#touches()}). When one of them is evaluated, the
     * others must be too, as in a check of every predicate, or the global would not hold what it held there.
     */
    public static Map<String, Set<String>> touchers(Map<String, Fingerprint> fingerprints) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        fingerprints.forEach((declared, fingerprint) -> fingerprint.touches()
                .forEach(global -> out.computeIfAbsent(global, g -> new TreeSet<>()).add(declared)));
        return out;
    }

    /**
     * The fingerprint of each predicate and each derived value of {@code script}, by its declared name (a derived
     * value's stored values can be reused as a predicate's findings can).
     *
     * @param script    the script's text
     * @param fileName  the script's file name, which error findings show (part of {@link Fingerprint#lines()} only)
     * @param globals   its global names as the evaluator reports them after it ran
     * @param settings  the settings that change findings (such as the predicate timeout), as text
     * @param engine    the checker's own version (such as a digest of the deja module)
     */
    public static Map<String, Fingerprint> of(String script, String fileName, List<ScriptEvaluator.GlobalName> globals,
                                              String settings, String engine) {
        Map<String, StringBuilder> texts = new LinkedHashMap<>();
        Map<String, Integer> lines = new HashMap<>();
        StringBuilder rest = new StringBuilder();
        Parsed parsed = parsed(script, globals);
        List<Block> blocks = parsed.blocks();
        for (Block block : blocks) {
            if (block.name() == null) {
                rest.append(block.text()).append('\n');
            } else {
                texts.computeIfAbsent(block.name(), n -> new StringBuilder()).append(block.text()).append('\n');
                lines.merge(block.name(), block.line(), Math::min);
            }
        }
        Map<String, ScriptEvaluator.GlobalName> byName = new LinkedHashMap<>();
        globals.forEach(g -> byName.put(g.name(), g));
        Map<String, Made> made = parsed.made();
        made.forEach((name, value) -> texts.put(name, new StringBuilder(value.text())));
        Map<String, Set<String>> refers = parsed.refers();
        // Each predicate's closure, before the mutable globals are shared out.
        Map<String, Set<String>> closures = new LinkedHashMap<>();
        Map<String, String> base = new LinkedHashMap<>();
        Map<String, Fingerprint> partial = new LinkedHashMap<>();
        for (ScriptEvaluator.GlobalName g : globals) {
            if (!("predicate".equals(g.what()) || "derived".equals(g.what())) || g.declared() == null) {
                continue;
            }
            Set<String> closure = walk(List.of(g.name()), refers, byName, name -> false);
            boolean dynamic = closure.stream().anyMatch(DYNAMIC::contains);
            StringBuilder digest = new StringBuilder(VERSION).append('\0').append(engine).append('\0')
                    .append(settings).append('\0').append(rest).append('\0');
            StringBuilder lineList = new StringBuilder(fileName).append(' ');
            Set<String> tables = new TreeSet<>();
            Set<String> derived = new TreeSet<>();
            boolean builtins = dynamic;
            for (String name : closure) {
                // A derived value made in a helper is listed with lines, which moving code changes: not its code.
                String identity = name.startsWith("@") ? name.substring(0, name.indexOf(':') + 1) : name;
                digest.append(identity).append('\0').append(texts.containsKey(name) ? texts.get(name) : "<not declared>")
                        .append('\0');
                lineList.append(name).append(':').append(lines.getOrDefault(name, 0)).append(' ');
                ScriptEvaluator.GlobalName global = byName.get(name);
                if (global == null) {
                    continue;
                }
                switch (global.what()) {
                    case "table" -> tables.add(global.declared());
                    case "derived" -> derived.add(global.declared());
                    case "builtin" -> builtins = true;
                    default -> { }
                }
            }
            if (dynamic) {
                // What it reads cannot be told from names: every table and derived value, and the whole script.
                digest.append(script);
                for (ScriptEvaluator.GlobalName other : globals) {
                    if ("table".equals(other.what())) {
                        tables.add(other.declared());
                    } else if ("derived".equals(other.what())) {
                        derived.add(other.declared());
                    }
                }
            }
            closures.put(g.declared(), closure);
            base.put(g.declared(), sha256(digest.toString()));
            partial.put(g.declared(), new Fingerprint("", lineList.toString().strip(), tables, derived, builtins, Set.of()));
        }
        // What each one touches: the mutable globals it reaches without going into other derived values.
        Set<String> allMutable = new TreeSet<>();
        globals.stream().filter(g -> "mutable".equals(g.what())).forEach(g -> allMutable.add(g.name()));
        Map<String, Set<String>> touches = new LinkedHashMap<>();
        for (ScriptEvaluator.GlobalName g : globals) {
            if (!("predicate".equals(g.what()) || "derived".equals(g.what())) || !partial.containsKey(g.declared())) {
                continue;
            }
            // Not past a dynamic name (it touches every one), nor into another derived value (what that touches is its own).
            Set<String> reached = walk(List.of(g.name()), refers, byName, name -> DYNAMIC.contains(name)
                    || (!name.equals(g.name()) && "derived".equals(byName.get(name).what())));
            boolean dynamic = reached.stream().anyMatch(DYNAMIC::contains);
            Set<String> touched = new TreeSet<>();
            for (String name : reached) {
                if (!DYNAMIC.contains(name) && "mutable".equals(byName.get(name).what())) {
                    touched.add(name);
                }
            }
            touches.put(g.declared(), dynamic ? allMutable : touched);
        }
        // Each mutable global's group digest: the bases of all its touchers.
        Map<String, String> groups = new HashMap<>();
        for (String global : allMutable) {
            StringBuilder digest = new StringBuilder(global).append('\0');
            touches.forEach((declared, touched) -> {
                if (touched.contains(global)) {
                    digest.append(declared).append('\0').append(base.get(declared)).append('\0');
                }
            });
            groups.put(global, sha256(digest.toString()));
        }
        Map<String, Fingerprint> out = new LinkedHashMap<>();
        for (Map.Entry<String, Fingerprint> entry : partial.entrySet()) {
            String declared = entry.getKey();
            StringBuilder digest = new StringBuilder(base.get(declared)).append('\0');
            boolean dynamic = closures.get(declared).stream().anyMatch(DYNAMIC::contains);
            for (String global : allMutable) {
                if (dynamic || closures.get(declared).contains(global)) {
                    digest.append(global).append('\0').append(groups.get(global)).append('\0');
                }
            }
            Fingerprint p = entry.getValue();
            out.put(declared, new Fingerprint(sha256(digest.toString()), p.lines(), p.tables(), p.derived(),
                    p.readsBuiltins(), touches.getOrDefault(declared, Set.of())));
        }
        return out;
    }

    /** A script's blocks, its derived values made in helpers and what each declaration refers to (read-only). */
    private record Parsed(String script, List<ScriptEvaluator.GlobalName> globals, List<Block> blocks,
                          Map<String, Made> made, Map<String, Set<String>> refers) {
    }

    /** The last script parsed: a re-check asks for several reaches and the fingerprints of one text in a row. */
    private static volatile Parsed lastParsed;

    private static Parsed parsed(String script, List<ScriptEvaluator.GlobalName> globals) {
        Parsed last = lastParsed;
        if (last != null && last.script().equals(script) && last.globals().equals(globals)) {
            return last;
        }
        List<Block> blocks = List.copyOf(blocks(script));
        Map<String, Made> made = java.util.Collections.unmodifiableMap(made(blocks, globals));
        Map<String, Set<String>> refers = new HashMap<>();
        refers(blocks, made).forEach((name, names) -> refers.put(name, java.util.Collections.unmodifiableSet(names)));
        Parsed parsed = new Parsed(script, List.copyOf(globals), blocks, made,
                java.util.Collections.unmodifiableMap(refers));
        lastParsed = parsed;
        return parsed;
    }

    /**
     * What each declaration's code refers to ({@link #names}), by the name it declares; a derived value made in a
     * helper refers to what the code that made it refers to, and is referred to by the blocks that can hold it.
     */
    private static Map<String, Set<String>> refers(List<Block> blocks, Map<String, Made> made) {
        Map<String, Set<String>> refers = new HashMap<>();
        for (Block block : blocks) {
            if (block.name() != null) {
                refers.computeIfAbsent(block.name(), n -> new TreeSet<>()).addAll(names(block.text()));
            }
        }
        made.forEach((name, value) -> {
            refers.computeIfAbsent(name, n -> new TreeSet<>()).addAll(names(value.text()));
            value.holders().forEach(holder -> refers.computeIfAbsent(holder, n -> new TreeSet<>()).add(name));
        });
        return refers;
    }

    /**
     * The derived values made in helpers that {@code globals} lists ({@code "@name:line:frames"}: the first line of its
     * function, then the lines of the script's frames that made it, the last at the top level), by their listed name.
     * One whose lines fall outside named blocks is taken as read by every block, and as reading what cannot be told.
     */
    private static Map<String, Made> made(List<Block> blocks, List<ScriptEvaluator.GlobalName> globals) {
        Map<String, Made> out = new LinkedHashMap<>();
        for (ScriptEvaluator.GlobalName global : globals) {
            if (!global.name().startsWith("@") || !"derived".equals(global.what())) {
                continue;
            }
            String[] parts = global.name().split(":", -1);
            List<Integer> lines = new ArrayList<>();
            try {
                lines.add(Integer.parseInt(parts[1]));
                for (String frame : parts[2].split(",")) {
                    lines.add(Integer.parseInt(frame));
                }
            } catch (RuntimeException e) {
                lines.clear();
            }
            StringBuilder text = new StringBuilder();
            Set<String> holders = new TreeSet<>();
            Set<String> evaluatedBy = new TreeSet<>();
            boolean placed = lines.size() >= 2;
            for (int i = 0; placed && i < lines.size(); i++) {
                Block block = blockAt(blocks, lines.get(i));
                int line = lines.get(i);
                if (block == null || block.name() == null) {
                    placed = false;
                    break;
                }
                boolean decorator = line < block.defLine();
                text.append(decorator ? block.decorators() : block.text()).append('\n');
                holders.add(block.name());
                if (!decorator) {
                    evaluatedBy.add(block.name());
                } else if (i == lines.size() - 1) {
                    // Made by a decorator: evaluating the predicate reads it unless only an aux argument made it.
                    String called = "derived";
                    if (lines.size() > 2) {
                        Block inner = blockAt(blocks, lines.get(i - 1));
                        called = inner == null ? "" : inner.name();
                    }
                    if (names(withoutAux(block.decorators())).contains(called)) {
                        evaluatedBy.add(block.name());
                    }
                }
            }
            if (!placed) {
                Set<String> all = new TreeSet<>();
                blocks.stream().map(Block::name).filter(java.util.Objects::nonNull).forEach(all::add);
                out.put(global.name(), new Made("globals", all, all));
            } else {
                out.put(global.name(), new Made(text.toString(), holders, evaluatedBy));
            }
        }
        return out;
    }

    /** The block that holds line {@code number} of the script, or null. */
    private static Block blockAt(List<Block> blocks, int number) {
        return blocks.stream().filter(block -> block.holds(number)).findFirst().orElse(null);
    }

    /**
     * Every name reachable from {@code roots} through {@code refers}, following the script's global names and the
     * dynamic ones ({@link #DYNAMIC}). A name for which {@code stop} holds is in the result but not gone on from.
     */
    private static Set<String> walk(java.util.Collection<String> roots, Map<String, Set<String>> refers,
                                    Map<String, ScriptEvaluator.GlobalName> globals,
                                    java.util.function.Predicate<String> stop) {
        Set<String> seen = new TreeSet<>();
        Deque<String> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!seen.add(name) || stop.test(name)) {
                continue;
            }
            for (String next : refers.getOrDefault(name, Set.of())) {
                if (globals.containsKey(next) || DYNAMIC.contains(next)) {
                    todo.push(next);
                }
            }
        }
        return seen;
    }

    /**
     * The names {@code text} (Python code) refers to: every identifier outside comments and string literals, and
     * every one inside an f-string (whose fields are code). A name in a docstring or a comment, such as another
     * predicate's, is no reference; an attribute spelled like a global still counts as one.
     */
    static Set<String> names(String text) {
        Set<String> out = new TreeSet<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '#') {
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                i = stringEnd(text, i);
            } else if (Character.isDigit(c)) {
                while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_'
                        || text.charAt(i) == '.')) {
                    i++;
                }
            } else if (Character.isLetter(c) || c == '_') {
                int end = i;
                while (end < n && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
                    end++;
                }
                String word = text.substring(i, end);
                if (end < n && (text.charAt(end) == '\'' || text.charAt(end) == '"') && word.length() <= 2
                        && word.chars().allMatch(ch -> "rRbBuUfF".indexOf(ch) >= 0)) {
                    // A string's prefix: an f-string's fields are code, the rest of a string is not.
                    int stop = stringEnd(text, end);
                    if (word.indexOf('f') >= 0 || word.indexOf('F') >= 0) {
                        Matcher m = IDENTIFIER.matcher(text.substring(end, stop));
                        while (m.find()) {
                            out.add(m.group());
                        }
                    }
                    i = stop;
                } else {
                    out.add(word);
                    i = end;
                }
            } else {
                i++;
            }
        }
        return out;
    }

    /** Where the string literal whose opening quote is at {@code start} ends (past its closing quote). */
    private static int stringEnd(String text, int start) {
        int n = text.length();
        char quote = text.charAt(start);
        String triple = String.valueOf(quote).repeat(3);
        boolean long_ = text.startsWith(triple, start);
        int j = start + (long_ ? 3 : 1);
        while (j < n) {
            char c = text.charAt(j);
            if (c == '\\') {
                j += 2;
            } else if (long_ ? text.startsWith(triple, j) : c == quote) {
                return j + (long_ ? 3 : 1);
            } else if (!long_ && c == '\n') {
                return j; // not closed on its line: a syntax error Python reports, not ours to fix
            } else {
                j++;
            }
        }
        return n;
    }

    /**
     * The script's top-level statements, each with the decorators and indented lines below it; named for a
     * {@code def}, a {@code class} or an assignment to one name, unnamed otherwise.
     */
    private static List<Block> blocks(String script) {
        List<Block> out = new ArrayList<>();
        List<String> block = new ArrayList<>();
        int start = 1;
        int number = 0;
        boolean decorators = false;
        for (String line : script.split("\n", -1)) {
            number++;
            boolean topLevel = !line.isEmpty() && !Character.isWhitespace(line.charAt(0)) && !line.startsWith("#")
                    && !line.startsWith(")") && !line.startsWith("]") && !line.startsWith("}");
            if (topLevel) {
                if (!decorators && !block.isEmpty()) {
                    out.add(block(block, start));
                    block = new ArrayList<>();
                }
                if (block.isEmpty()) {
                    start = number;
                }
                decorators = line.startsWith("@");
            }
            if (topLevel || !block.isEmpty()) {
                block.add(line);
            }
        }
        if (!block.isEmpty()) {
            out.add(block(block, start));
        }
        return out;
    }

    private static Block block(List<String> lines, int start) {
        // Comments and blank lines after its last line of code are not the statement's (they may introduce the next).
        int end = lines.size();
        while (end > 1 && (lines.get(end - 1).isBlank() || lines.get(end - 1).strip().startsWith("#"))) {
            end--;
        }
        String text = String.join("\n", lines.subList(0, end)).stripTrailing();
        for (int at = 0; at < lines.size(); at++) {
            String line = lines.get(at);
            if (line.startsWith("@") || line.isEmpty() || Character.isWhitespace(line.charAt(0))
                    || line.startsWith(")") || line.startsWith("]") || line.startsWith("}")) {
                continue; // decorators and their continuation lines
            }
            Matcher def = DEF.matcher(line);
            if (def.find()) {
                String undecorated = at == 0 ? text : withoutAux(String.join("\n", lines.subList(0, at))) + "\n"
                        + String.join("\n", lines.subList(at, Math.max(end, at + 1)));
                return new Block(def.group(1), start, text, undecorated, start + at);
            }
            Matcher assignment = ASSIGNMENT.matcher(line);
            return new Block(assignment.find() ? assignment.group(1) : null, start, text, text, start);
        }
        return new Block(null, start, text, text, start);
    }

    /**
     * {@code decorators} without their {@code aux=} arguments (a list such as {@code aux=[...]}, or any expression, such
     * as a helper's call that makes the aux callables): what the rest of a decorator names, such as a wrapper of the
     * user's own, still counts as read when the predicate is evaluated. An argument ends at a comma or a closing
     * bracket outside brackets and strings.
     */
    static String withoutAux(String decorators) {
        Matcher aux = AUX.matcher(decorators);
        StringBuilder out = new StringBuilder();
        int from = 0;
        while (aux.find(from)) {
            int depth = 0;
            int at = aux.end();
            char quote = 0;
            for (; at < decorators.length(); at++) {
                char c = decorators.charAt(at);
                if (quote != 0) {
                    if (c == '\\') {
                        at++;
                    } else if (c == quote) {
                        quote = 0;
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '#') {
                    while (at < decorators.length() && decorators.charAt(at) != '\n') {
                        at++;
                    }
                } else if (c == '[' || c == '(' || c == '{') {
                    depth++;
                } else if (c == ']' || c == ')' || c == '}') {
                    if (depth == 0) {
                        break;
                    }
                    depth--;
                } else if (c == ',' && depth == 0) {
                    break;
                }
            }
            out.append(decorators, from, aux.start());
            from = Math.min(decorators.length(), at);
        }
        return out.append(decorators.substring(from)).toString();
    }

    /** The SHA-256 of {@code text}, in hex. */
    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
