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
 * assignment to one name); it refers to every global whose name occurs in its text (an over-approximation: a name in
 * a comment or string, or an attribute spelled like a global, only makes the fingerprint change more often). What a
 * predicate can reach is the closure of that relation. The rest of the script (imports, other statements, a
 * declaration split by a line in the first column inside a multi-line string) is part of every fingerprint. A
 * declaration whose text names a way to reach globals without naming them ({@code globals}, {@code eval},
 * {@code getattr}...) gets the whole script's text instead. Predicates that can reach the same mutable global (a list,
 * dict, set or object) may depend on each other's evaluations, so each gets the fingerprints of all of them.
 *
 * <p>Line numbers are not part of the fingerprint, since moving a declaration does not change findings, except for
 * error findings, whose tracebacks show lines: {@link Fingerprint#lines()} is the start line of every declaration
 * reached, which a result with an error finding must also match to be reused.
 */
public final class PredicateFingerprints {
    private static final Pattern DEF = Pattern.compile("^(?:async\\s+)?(?:def|class)\\s+([A-Za-z_]\\w*)");
    private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Za-z_]\\w*)\\s*(?::[^=]*)?=(?!=)");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");
    private static final Set<String> DYNAMIC = Set.of("globals", "vars", "locals", "eval", "exec", "compile",
            "getattr", "setattr", "delattr", "__import__", "importlib", "sys", "__dict__", "__globals__");
    /** Changes whenever what a fingerprint covers or how findings are made changes. */
    private static final String VERSION = "deja-predicate-fingerprint 2";

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
     */
    public record Fingerprint(String code, String lines, Set<String> tables, Set<String> derived,
                              boolean readsBuiltins) {
    }

    private record Block(String name, int line, String text) {
    }

    private PredicateFingerprints() {
    }

    /**
     * What some predicates can reach when the derived values in {@code served} are not evaluated (their values come
     * from elsewhere): what they reach through those is left out.
     *
     * @param tables   the names of the tables they can reach
     * @param derived  the names of the derived values they can reach, but for the served ones
     * @param builtins whether they can reach the event built-ins, {@code nodes}, {@code now} or {@code stats}, or what
     *                 they reach cannot be told from their text
     */
    public record Reach(Set<String> tables, Set<String> derived, boolean builtins) {
    }

    /**
     * What the predicates declared as {@code predicates} can reach, not going through the derived values declared as
     * {@code served} (see {@link Reach}).
     */
    public static Reach reach(String script, List<ScriptEvaluator.GlobalName> globals, java.util.Collection<String> predicates,
                              Set<String> served) {
        Map<String, Set<String>> refers = new HashMap<>();
        for (Block block : blocks(script)) {
            if (block.name() != null) {
                Set<String> names = refers.computeIfAbsent(block.name(), n -> new TreeSet<>());
                Matcher m = IDENTIFIER.matcher(block.text());
                while (m.find()) {
                    names.add(m.group());
                }
            }
        }
        Map<String, ScriptEvaluator.GlobalName> byName = new LinkedHashMap<>();
        globals.forEach(g -> byName.put(g.name(), g));
        Set<String> tables = new TreeSet<>();
        Set<String> derived = new TreeSet<>();
        boolean builtins = false;
        Set<String> seen = new java.util.HashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        for (String predicate : predicates) {
            String name = globals.stream().filter(g -> "predicate".equals(g.what()) && predicate.equals(g.declared()))
                    .map(ScriptEvaluator.GlobalName::name).findFirst().orElse(null);
            if (name == null) {
                builtins = true;
            } else {
                todo.push(name);
            }
        }
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!seen.add(name)) {
                continue;
            }
            if (DYNAMIC.contains(name)) {
                builtins = true;
                continue;
            }
            ScriptEvaluator.GlobalName global = byName.get(name);
            if (global != null) {
                switch (global.what()) {
                    case "table" -> tables.add(global.declared());
                    case "derived" -> {
                        if (served.contains(global.declared())) {
                            continue;
                        }
                        derived.add(global.declared());
                    }
                    case "builtin" -> builtins = true;
                    default -> { }
                }
            }
            for (String next : refers.getOrDefault(name, Set.of())) {
                if (byName.containsKey(next) || DYNAMIC.contains(next)) {
                    todo.push(next);
                }
            }
        }
        return new Reach(tables, derived, builtins);
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
        for (Block block : blocks(script)) {
            if (block.name() == null) {
                rest.append(block.text()).append('\n');
            } else {
                texts.computeIfAbsent(block.name(), n -> new StringBuilder()).append(block.text()).append('\n');
                lines.merge(block.name(), block.line(), Math::min);
            }
        }
        Map<String, ScriptEvaluator.GlobalName> byName = new LinkedHashMap<>();
        globals.forEach(g -> byName.put(g.name(), g));
        Map<String, Set<String>> refers = new HashMap<>();
        texts.forEach((name, text) -> {
            Set<String> names = new TreeSet<>();
            Matcher m = IDENTIFIER.matcher(text);
            while (m.find()) {
                names.add(m.group());
            }
            refers.put(name, names);
        });
        // Each predicate's closure, before the mutable globals are shared out.
        Map<String, Set<String>> closures = new LinkedHashMap<>();
        Map<String, String> base = new LinkedHashMap<>();
        Map<String, Fingerprint> partial = new LinkedHashMap<>();
        for (ScriptEvaluator.GlobalName g : globals) {
            if (!("predicate".equals(g.what()) || "derived".equals(g.what())) || g.declared() == null) {
                continue;
            }
            Set<String> closure = new TreeSet<>();
            Deque<String> todo = new ArrayDeque<>(List.of(g.name()));
            while (!todo.isEmpty()) {
                String name = todo.pop();
                if (!closure.add(name)) {
                    continue;
                }
                for (String next : refers.getOrDefault(name, Set.of())) {
                    if (byName.containsKey(next) || DYNAMIC.contains(next)) {
                        todo.push(next);
                    }
                }
            }
            boolean dynamic = closure.stream().anyMatch(DYNAMIC::contains);
            StringBuilder digest = new StringBuilder(VERSION).append('\0').append(engine).append('\0')
                    .append(settings).append('\0').append(rest).append('\0');
            StringBuilder lineList = new StringBuilder(fileName).append(' ');
            Set<String> tables = new TreeSet<>();
            Set<String> derived = new TreeSet<>();
            boolean builtins = dynamic;
            for (String name : closure) {
                digest.append(name).append('\0').append(texts.containsKey(name) ? texts.get(name) : "<not declared>")
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
            partial.put(g.declared(), new Fingerprint("", lineList.toString().strip(), tables, derived, builtins));
        }
        // Predicates that reach a common mutable global are fingerprinted together.
        Map<String, Fingerprint> out = new LinkedHashMap<>();
        for (Map.Entry<String, Fingerprint> entry : partial.entrySet()) {
            String predicate = entry.getKey();
            Set<String> group = new TreeSet<>(List.of(predicate));
            boolean grew = true;
            while (grew) {
                grew = false;
                for (String member : List.copyOf(group)) {
                    for (String name : closures.get(member)) {
                        ScriptEvaluator.GlobalName global = byName.get(name);
                        if (global == null || !"mutable".equals(global.what())) {
                            continue;
                        }
                        for (Map.Entry<String, Set<String>> other : closures.entrySet()) {
                            if (other.getValue().contains(name) && group.add(other.getKey())) {
                                grew = true;
                            }
                        }
                    }
                }
            }
            StringBuilder digest = new StringBuilder();
            StringBuilder groupLines = new StringBuilder();
            for (String member : group) {
                digest.append(member).append('\0').append(base.get(member)).append('\0');
                groupLines.append(partial.get(member).lines()).append(' ');
            }
            Fingerprint p = entry.getValue();
            out.put(predicate, new Fingerprint(sha256(digest.toString()), groupLines.toString().strip(), p.tables(),
                    p.derived(), p.readsBuiltins()));
        }
        return out;
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
        for (String line : lines) {
            if (line.startsWith("@") || line.isEmpty() || Character.isWhitespace(line.charAt(0))
                    || line.startsWith(")") || line.startsWith("]") || line.startsWith("}")) {
                continue; // decorators and their continuation lines
            }
            Matcher def = DEF.matcher(line);
            if (def.find()) {
                return new Block(def.group(1), start, text);
            }
            Matcher assignment = ASSIGNMENT.matcher(line);
            return new Block(assignment.find() ? assignment.group(1) : null, start, text);
        }
        return new Block(null, start, text);
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
