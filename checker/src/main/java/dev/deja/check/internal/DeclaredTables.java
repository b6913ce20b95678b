package dev.deja.check.internal;

import dev.deja.check.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The tables a script most likely declares, read from its text without Python: each call {@code table(...)} or
 * {@code deja.table(...)} whose name, class and columns are written as string literals, in the order they appear.
 *
 * <p>A guess, never a fact: the script's code decides what it declares (a call in a function that never runs, in a
 * loop, under another name), so a check that starts its replay from this guess compares it with the tables that
 * loading the script declared and replays again when they differ. Empty when any {@code table} call has an argument
 * that is not such a literal, or when the text cannot be read as Python's tokens.
 */
public final class DeclaredTables {
    private DeclaredTables() {
    }

    /** The tables {@code text} declares if it is read as written, or empty if that cannot be told without Python. */
    public static Optional<List<TableSchema>> guess(String text) {
        List<Token> tokens;
        try {
            tokens = tokens(text);
        } catch (IllegalArgumentException unreadable) {
            return Optional.empty();
        }
        List<TableSchema> tables = new ArrayList<>();
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.kind != Kind.NAME || !token.text.equals("table") || !tokens.get(i + 1).is("(")) {
                continue;
            }
            Token before = i > 0 ? tokens.get(i - 1) : null;
            if (before != null && before.is("def")) {
                continue;
            }
            if (before != null && before.is(".") && (i < 2 || !tokens.get(i - 2).is("deja"))) {
                continue;
            }
            Optional<TableSchema> table = call(tokens, i + 2);
            if (table.isEmpty()) {
                return Optional.empty();
            }
            tables.add(table.get());
        }
        return Optional.of(List.copyOf(tables));
    }

    /** The table declared by the arguments starting at {@code at} (after the opening parenthesis), if literal. */
    private static Optional<TableSchema> call(List<Token> tokens, int at) {
        String name = null;
        String className = null;
        List<String> columns = null;
        int positional = 0;
        int i = at;
        while (i < tokens.size() && !tokens.get(i).is(")")) {
            String keyword = null;
            if (tokens.get(i).kind == Kind.NAME && i + 1 < tokens.size() && tokens.get(i + 1).is("=")) {
                keyword = tokens.get(i).text;
                i += 2;
            } else if (tokens.get(i).is("*") || tokens.get(i).is("**")) {
                return Optional.empty();
            }
            String role = keyword != null ? keyword : switch (positional++) {
                case 0 -> "name";
                case 1 -> "cls";
                case 2 -> "columns";
                default -> "keep_versions";
            };
            int end = argumentEnd(tokens, i);
            if (end < 0) {
                return Optional.empty();
            }
            switch (role) {
                case "name" -> name = single(tokens, i, end);
                case "cls" -> className = single(tokens, i, end);
                case "columns" -> columns = strings(tokens, i, end);
                case "keep_versions" -> {
                    // Not part of a table's schema.
                }
                default -> {
                    return Optional.empty();
                }
            }
            i = end;
            if (i < tokens.size() && tokens.get(i).is(",")) {
                i++;
            }
        }
        if (name == null || className == null || columns == null) {
            return Optional.empty();
        }
        return Optional.of(new TableSchema(name, className, columns));
    }

    /** The index of the comma or closing parenthesis that ends the argument starting at {@code at}, or -1. */
    private static int argumentEnd(List<Token> tokens, int at) {
        int depth = 0;
        for (int i = at; i < tokens.size(); i++) {
            Token token = tokens.get(i);
            if (token.is("(") || token.is("[") || token.is("{")) {
                depth++;
            } else if (token.is(")") || token.is("]") || token.is("}")) {
                if (depth == 0) {
                    return token.is(")") ? i : -1;
                }
                depth--;
            } else if (token.is(",") && depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The string literal that is the whole of tokens [from, to), or null. */
    private static String single(List<Token> tokens, int from, int to) {
        return to == from + 1 && tokens.get(from).kind == Kind.STRING ? tokens.get(from).text : null;
    }

    /** The list or tuple of string literals that is the whole of tokens [from, to), or null. */
    private static List<String> strings(List<Token> tokens, int from, int to) {
        if (to - from < 2) {
            return null;
        }
        String open = tokens.get(from).text;
        String close = open.equals("[") ? "]" : open.equals("(") ? ")" : null;
        if (close == null || !tokens.get(to - 1).is(close)) {
            return null;
        }
        List<String> out = new ArrayList<>();
        boolean expectValue = true;
        for (int i = from + 1; i < to - 1; i++) {
            Token token = tokens.get(i);
            if (expectValue && token.kind == Kind.STRING && token.text != null) {
                out.add(token.text);
                expectValue = false;
            } else if (!expectValue && token.is(",")) {
                expectValue = true;
            } else {
                return null;
            }
        }
        return out;
    }

    private enum Kind { NAME, STRING, OTHER }

    /** A token: a name, a string literal's value (null if it has escapes or an f-prefix), or any other text. */
    private record Token(Kind kind, String text) {
        boolean is(String value) {
            return kind != Kind.STRING && value.equals(text);
        }
    }

    /** Python's tokens, roughly: comments dropped, strings read, numbers and operators kept as text. */
    static List<Token> tokens(String text) {
        List<Token> out = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (c == '#') {
                while (i < n && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (Character.isWhitespace(c) || c == '\\') {
                i++;
            } else if (Character.isJavaIdentifierStart(c)) {
                int start = i;
                while (i < n && Character.isJavaIdentifierPart(text.charAt(i))) {
                    i++;
                }
                String word = text.substring(start, i);
                if (i < n && (text.charAt(i) == '\'' || text.charAt(i) == '"') && word.length() <= 2
                        && word.toLowerCase(java.util.Locale.ROOT).matches("[rbuf]+")) {
                    i = string(text, i, word.toLowerCase(java.util.Locale.ROOT), out);
                } else {
                    out.add(new Token(Kind.NAME, word));
                }
            } else if (c == '\'' || c == '"') {
                i = string(text, i, "", out);
            } else if (c == '*' && i + 1 < n && text.charAt(i + 1) == '*') {
                out.add(new Token(Kind.OTHER, "**"));
                i += 2;
            } else if (c == '=' && i + 1 < n && text.charAt(i + 1) == '=') {
                out.add(new Token(Kind.OTHER, "=="));
                i += 2;
            } else {
                out.add(new Token(Kind.OTHER, String.valueOf(c)));
                i++;
            }
        }
        return out;
    }

    /** Reads the string literal opening at {@code at} into {@code out} and returns the index after it. */
    private static int string(String text, int at, String prefix, List<Token> out) {
        char quote = text.charAt(at);
        boolean triple = text.startsWith(String.valueOf(quote).repeat(3), at);
        String close = triple ? String.valueOf(quote).repeat(3) : String.valueOf(quote);
        boolean raw = prefix.contains("r");
        boolean plain = !prefix.contains("f") && !prefix.contains("b");
        int i = at + close.length();
        StringBuilder value = new StringBuilder();
        while (true) {
            if (i >= text.length()) {
                throw new IllegalArgumentException("unterminated string");
            }
            char c = text.charAt(i);
            if (c == '\\') {
                // An escape: the literal's value is left to Python.
                plain = plain && raw;
                value.append(c);
                if (i + 1 < text.length()) {
                    value.append(text.charAt(i + 1));
                }
                i += 2;
                continue;
            }
            if (text.startsWith(close, i)) {
                out.add(new Token(Kind.STRING, plain ? value.toString() : null));
                return i + close.length();
            }
            if (c == '\n' && !triple) {
                throw new IllegalArgumentException("unterminated string");
            }
            value.append(c);
            i++;
        }
    }
}
