package dev.deja.check.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads the texts {@code repr} writes for containers (lists, tuples, dicts, sets, frozensets) of the scalars
 * {@link ScriptEvaluator#scalar} reads, without Python: one grammar, two uses. {@link ScriptEvaluator} builds the
 * values from them ({@link Parts} making Python containers); {@link #exactSets} tells, before a derived value's texts
 * are stored, whether Python would read a text back to a value with that same {@code repr}, leaving Python to check
 * only the sets inside it, whose order of items Java cannot tell.
 */
final class ReprText {
    /** What a text is not made of: anything this grammar does not read. */
    static final Object UNREADABLE = ScriptEvaluator.NOT_SCALAR;

    /** What a reading makes of each part it reads; any method may answer {@link #UNREADABLE} to stop it. */
    interface Parts {
        Object scalar(String text);

        Object list(List<Object> items);

        Object tuple(List<Object> items);

        /** A dict, from its keys and values alternating. */
        Object dict(List<Object> keysAndValues);

        /** A set; {@code start} and {@code end} bound its text (an empty set's too). */
        Object set(List<Object> items, int start, int end);

        /** A frozenset of the set {@code set} made (null for an empty one), its text between {@code start} and {@code end}. */
        Object frozenset(Object set, int start, int end);
    }

    private final String text;
    private final Parts parts;
    private int at;

    private ReprText(String text, Parts parts) {
        this.text = text;
        this.parts = parts;
    }

    /** What {@code parts} make of the whole of {@code text}, or {@link #UNREADABLE}. */
    static Object read(String text, Parts parts) {
        ReprText reader = new ReprText(text, parts);
        Object value = reader.value();
        return value != UNREADABLE && reader.at == text.length() ? value : UNREADABLE;
    }

    /**
     * The texts of the outermost sets and frozensets inside {@code text} if Python reads {@code text} back to a value
     * whose {@code repr} is {@code text} exactly, provided that each of those sets reads back to its own text; null if
     * Java cannot tell (Python must then read the whole text). Exact means written as {@code repr} writes it:
     * integers without a sign on zero, strings of printable ASCII in the quotes {@code repr} picks, ", " and ": "
     * between items, no key twice in a dict (keys compared as Python compares them: {@code 1 == True}).
     */
    static List<String> exactSets(String text) {
        Exact exact = new Exact(text);
        return read(text, exact) == UNREADABLE ? null : exact.sets;
    }

    /**
     * The exactness check of {@link #exactSets}: each part becomes a {@link Key} (equal for values Python finds equal)
     * or {@link #UNREADABLE}.
     */
    private static final class Exact implements Parts {
        /** A part's canonical form, and whether Python can hash it (be a dict's key). */
        private record Key(String form, boolean hashable) {
        }

        private final String text;
        final List<String> sets = new ArrayList<>();
        // The spans of the sets noted so far, outermost only: a set is read after the sets inside it, and replaces them.
        private final List<int[]> spans = new ArrayList<>();

        Exact(String text) {
            this.text = text;
        }

        @Override
        public Object scalar(String scalar) {
            Object value = ScriptEvaluator.scalar(scalar);
            if (value == UNREADABLE || scalar.equals("-0")) {
                return UNREADABLE;
            }
            if (value instanceof String s) {
                // repr quotes with ' unless the string holds a ' and no "; it escapes anything not printable.
                if (scalar.charAt(0) != '\'' && s.indexOf('\'') < 0) {
                    return UNREADABLE;
                }
                for (int i = 0; i < s.length(); i++) {
                    char c = s.charAt(i);
                    if (c < 0x20 || c > 0x7e) {
                        return UNREADABLE;
                    }
                }
                return new Key("s" + s.length() + ":" + s, true);
            }
            if (value instanceof Boolean b) {
                return new Key(b ? "i1" : "i0", true);
            }
            return new Key(value == null ? "n" : "i" + value, true);
        }

        @Override
        public Object list(List<Object> items) {
            return new Key(join("[", items, false), false);
        }

        @Override
        public Object tuple(List<Object> items) {
            boolean hashable = true;
            for (Object item : items) {
                hashable &= ((Key) item).hashable();
            }
            return new Key(join("(", items, false), hashable);
        }

        @Override
        public Object dict(List<Object> keysAndValues) {
            Set<String> keys = new HashSet<>();
            StringBuilder form = new StringBuilder("{");
            for (int i = 0; i < keysAndValues.size(); i += 2) {
                Key key = (Key) keysAndValues.get(i);
                if (!key.hashable() || !keys.add(key.form())) {
                    return UNREADABLE;
                }
                form.append(key.form()).append(':').append(((Key) keysAndValues.get(i + 1)).form()).append(',');
            }
            return new Key(form.append('}').toString(), false);
        }

        @Override
        public Object set(List<Object> items, int start, int end) {
            note(start, end);
            // Python checks the set's items (hashable, each once) when it reads the set back.
            return new Key(join("<", items, true), false);
        }

        @Override
        public Object frozenset(Object set, int start, int end) {
            note(start, end);
            return new Key(set == null ? "<>" : ((Key) set).form(), true);
        }

        private void note(int start, int end) {
            while (!spans.isEmpty() && spans.getLast()[0] >= start) {
                spans.removeLast();
                sets.removeLast();
            }
            spans.add(new int[] {start, end});
            sets.add(text.substring(start, end));
        }

        /** The forms of {@code items} after {@code open}, sorted if {@code sorted} (a set's order is not its value). */
        private static String join(String open, List<Object> items, boolean sorted) {
            List<String> forms = new ArrayList<>(items.size());
            for (Object item : items) {
                forms.add(((Key) item).form());
            }
            if (sorted) {
                forms.sort(null);
            }
            return open + String.join(",", forms) + ">";
        }
    }

    private Object value() {
        if (at >= text.length()) {
            return UNREADABLE;
        }
        char c = text.charAt(at);
        int start = at;
        if (c == '[') {
            at++;
            List<Object> items = items(']');
            return items == null ? UNREADABLE : parts.list(items);
        }
        if (c == '(') {
            at++;
            List<Object> items = items(')');
            return items == null ? UNREADABLE : parts.tuple(items);
        }
        if (c == '{') {
            return braces();
        }
        if (text.startsWith("set()", at)) {
            at += 5;
            return parts.set(List.of(), start, at);
        }
        if (text.startsWith("frozenset()", at)) {
            at += 11;
            return parts.frozenset(null, start, at);
        }
        if (text.startsWith("frozenset({", at)) {
            at += 10;
            Object set = braces();
            if (set == UNREADABLE || !setRead || !text.startsWith(")", at)) {
                return UNREADABLE;
            }
            at++;
            return parts.frozenset(set, start, at);
        }
        int end = at;
        if (c == '\'' || c == '"') {
            end = text.indexOf(c, at + 1);
            if (end < 0) {
                return UNREADABLE;
            }
            end++;
        } else {
            while (end < text.length() && ",:)]} ".indexOf(text.charAt(end)) < 0) {
                end++;
            }
        }
        Object scalar = parts.scalar(text.substring(at, end));
        at = end;
        return scalar;
    }

    /** The items up to {@code close}, separated by ", " (a tuple of one ends with ","); null if unreadable. */
    private List<Object> items(char close) {
        List<Object> items = new ArrayList<>();
        if (at < text.length() && text.charAt(at) == close) {
            at++;
            return items;
        }
        while (true) {
            Object item = value();
            if (item == UNREADABLE) {
                return null;
            }
            items.add(item);
            if (text.startsWith(", ", at)) {
                at += 2;
            } else if (text.startsWith(",", at) && close == ')' && items.size() == 1 && text.startsWith(")", at + 1)) {
                at += 2;
                return items;
            } else if (at < text.length() && text.charAt(at) == close) {
                at++;
                return close == ')' && items.size() == 1 ? null : items;
            } else {
                return null;
            }
        }
    }

    /** Whether the last {@link #braces} read a set (rather than a dict). */
    private boolean setRead;

    /** A dict ({@code {k: v, ...}}, or {@code {}}) or a non-empty set ({@code {a, b}}). */
    private Object braces() {
        int start = at;
        at++;
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            setRead = false;
            return parts.dict(List.of());
        }
        List<Object> flat = new ArrayList<>();
        boolean dict = false;
        while (true) {
            Object key = value();
            if (key == UNREADABLE) {
                return UNREADABLE;
            }
            flat.add(key);
            if (flat.size() == 1) {
                dict = text.startsWith(": ", at);
            }
            if (dict) {
                if (!text.startsWith(": ", at)) {
                    return UNREADABLE;
                }
                at += 2;
                Object value = value();
                if (value == UNREADABLE) {
                    return UNREADABLE;
                }
                flat.add(value);
            }
            if (text.startsWith(", ", at)) {
                at += 2;
            } else if (at < text.length() && text.charAt(at) == '}') {
                at++;
                setRead = !dict;
                return dict ? parts.dict(flat) : parts.set(flat, start, at);
            } else {
                return UNREADABLE;
            }
        }
    }
}
