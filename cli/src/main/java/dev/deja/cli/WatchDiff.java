package dev.deja.cli;

import dev.deja.check.CheckReport;
import dev.deja.check.Violation;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code deja check --watch} prints after each re-check: which declarations of the script changed since the
 * previous check (predicates, derived values, tables, other definitions, each by name), which findings appeared and
 * which disappeared, and how long the re-check took.
 *
 * <p>A declaration is a top-level statement of the script with the decorators above it: a {@code def} (named by
 * its function) or an assignment (named by its target, such as a table). Python marks a top-level statement by
 * starting it in the first column, and so does this split; a line in the first column inside a multi-line string
 * would end a declaration early, which at worst names one too many as changed.
 */
final class WatchDiff {
    private static final Pattern DEF = Pattern.compile("^(?:async\\s+)?def\\s+([A-Za-z_]\\w*)", Pattern.MULTILINE);
    private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Za-z_]\\w*)\\s*(?::[^=]*)?=(?!=)");
    private static final Pattern DECORATOR = Pattern.compile("^@\\s*(?:deja\\.)?([A-Za-z_]\\w*)");

    private WatchDiff() {
    }

    /** One top-level declaration: its name, what declares it ({@code always}, {@code derived}, {@code table}...), its text. */
    record Declaration(String name, String kind, String text) {
    }

    /** The script's top-level declarations by name, in order. */
    static Map<String, Declaration> declarations(String script) {
        Map<String, Declaration> declarations = new LinkedHashMap<>();
        List<String> block = new ArrayList<>();
        // Whether the block so far holds only decorators, which belong to the statement that follows them.
        boolean decorators = false;
        for (String line : script.split("\n", -1)) {
            boolean topLevel = !line.isEmpty() && !Character.isWhitespace(line.charAt(0)) && !line.startsWith("#")
                    && !line.startsWith(")") && !line.startsWith("]") && !line.startsWith("}");
            if (topLevel) {
                if (!decorators && !block.isEmpty()) {
                    add(declarations, block);
                    block = new ArrayList<>();
                }
                decorators = line.startsWith("@");
            }
            if (topLevel || !block.isEmpty()) {
                block.add(line);
            }
        }
        if (!block.isEmpty()) {
            add(declarations, block);
        }
        return declarations;
    }

    private static void add(Map<String, Declaration> declarations, List<String> block) {
        String kind = null;
        for (String line : block) {
            Matcher decorator = DECORATOR.matcher(line);
            if (decorator.find()) {
                kind = kind == null ? decorator.group(1) : kind;
                continue;
            }
            if (line.startsWith("@") || line.isEmpty() || Character.isWhitespace(line.charAt(0))) {
                continue; // a decorator's other lines
            }
            String text = String.join("\n", block).stripTrailing();
            Matcher def = DEF.matcher(line);
            if (def.find()) {
                declarations.put(def.group(1), new Declaration(def.group(1), kind == null ? "def" : kind, text));
                return;
            }
            Matcher assignment = ASSIGNMENT.matcher(line);
            if (assignment.find()) {
                String value = line.substring(assignment.end()).strip();
                String called = value.matches("(?:deja\\.)?[A-Za-z_]\\w*\\s*\\(.*") ? value.replaceFirst("^(?:deja\\.)?([A-Za-z_]\\w*).*", "$1") : "value";
                declarations.put(assignment.group(1), new Declaration(assignment.group(1), called, text));
            }
            return;
        }
    }

    /** The names of declarations edited, added or removed between two versions of a script, with what they are. */
    static List<String> changed(String before, String after) {
        Map<String, Declaration> old = declarations(before);
        Map<String, Declaration> now = declarations(after);
        List<String> changed = new ArrayList<>();
        for (Declaration declaration : now.values()) {
            Declaration previous = old.get(declaration.name());
            if (previous == null) {
                changed.add(declaration.name() + " (" + declaration.kind() + ", new)");
            } else if (!previous.text().equals(declaration.text())) {
                changed.add(declaration.name() + " (" + declaration.kind() + ")");
            }
        }
        for (Declaration declaration : old.values()) {
            if (!now.containsKey(declaration.name())) {
                changed.add(declaration.name() + " (" + declaration.kind() + ", removed)");
            }
        }
        return changed;
    }

    /** A finding as the difference shows it, and what makes two findings the same. */
    private static String describe(Violation v) {
        return String.format(Locale.ROOT, "%d %s %s %s", v.event().position(), v.event().node().value(), v.predicate(),
                v.statusText());
    }

    private static String key(Violation v) {
        return v.predicate() + "\u0000" + v.kind() + "\u0000" + v.status() + "\u0000" + v.event().position() + "\u0000"
                + v.endPosition().map(Object::toString).orElse("-") + "\u0000" + Objects.toString(v.message());
    }

    /**
     * Prints the difference between the previous check ({@code before}, {@code previous}; a null report if it
     * failed) and this one ({@code after}, {@code current}; null if it failed), and the time this one took.
     */
    static void print(String before, String after, CheckReport previous, CheckReport current, long nanos,
                      PrintWriter out) {
        List<String> changed = changed(before, after);
        out.println("deja check: changed since the last check: " + (changed.isEmpty() ? "nothing in the declarations"
                : String.join(", ", changed)));
        if (previous != null && current != null) {
            Map<String, Violation> old = new LinkedHashMap<>();
            previous.violations().forEach(v -> old.put(key(v), v));
            Map<String, Violation> now = new LinkedHashMap<>();
            current.violations().forEach(v -> now.put(key(v), v));
            Set<String> appeared = new LinkedHashSet<>(now.keySet());
            appeared.removeAll(old.keySet());
            Set<String> disappeared = new LinkedHashSet<>(old.keySet());
            disappeared.removeAll(now.keySet());
            out.printf(Locale.ROOT, "deja check: %d finding(s) appeared, %d disappeared, %d unchanged%n", appeared.size(),
                    disappeared.size(), now.size() - appeared.size());
            appeared.forEach(key -> out.println("  + " + describe(now.get(key))));
            disappeared.forEach(key -> out.println("  - " + describe(old.get(key))));
        } else {
            out.println("deja check: no findings to compare (" + (current == null ? "this" : "the last") + " check failed)");
        }
        out.printf(Locale.ROOT, "deja check: re-checked in %.2f s%n", nanos / 1e9);
        out.flush();
    }
}
