package dev.deja.view.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A rendered, immutable picture of an object graph at one moment: a tree of named values. Leaves hold a
 * value's text; inner nodes hold a summary (type and size) and their members. Taken from live node objects
 * during a replay, so it stays valid after the objects change.
 *
 * @param name     the member's name in its parent ({@code acceptedRound}, {@code [3]}, a map key)
 * @param type     the value's simple type name, or empty for null
 * @param text     the value as text for a leaf, a summary for an inner node
 * @param children the members, in a stable order
 */
record ObjectTree(String name, String type, String text, List<ObjectTree> children) {
    ObjectTree {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
        children = List.copyOf(children);
    }

    /** Starts the name of a set's element, which is the element itself ({@code ∈ "n2"}): sets diff by element. */
    static final String ELEMENT = "∈ ";

    /** Whether this is a set's element shown by its name alone (its value is its name). */
    boolean isElementLeaf() {
        return name.startsWith(ELEMENT) && children.isEmpty();
    }

    static ObjectTree leaf(String name, String type, String text) {
        return new ObjectTree(name, type, text, List.of());
    }

    /** How a member compares with the same member one state earlier. */
    enum Change { SAME, CHANGED, ADDED, REMOVED }

    /**
     * One member of two states side by side.
     *
     * @param name     the member's name
     * @param text     its text now (for a removed member: before)
     * @param before   its text before, when it changed
     * @param change   how it changed
     * @param changedBelow whether this member or anything under it changed
     * @param children the members under it, matched by name
     */
    record Diff(String name, String text, String before, Change change, boolean changedBelow, List<Diff> children) {
        Diff {
            children = List.copyOf(children);
        }

        /**
         * The member as one line: {@code name = value}, a change as {@code name = old → new}, a set's element by
         * itself; added members start with {@code +}, removed ones with {@code −}.
         */
        String line() {
            String mark = switch (change) {
                case ADDED -> "+ ";
                case REMOVED -> "− ";
                default -> "";
            };
            if (name.startsWith(ELEMENT) && children.isEmpty()) {
                return mark + name;
            }
            return mark + name + " = " + (change == Change.CHANGED ? before + " → " + text : text);
        }
    }

    /** Compares this tree (the state after) with {@code before} (null: nothing to compare with, all SAME). */
    Diff diff(ObjectTree before) {
        if (before == null) {
            return same(this);
        }
        Map<String, ObjectTree> earlier = new HashMap<>();
        for (ObjectTree child : before.children) {
            earlier.put(child.name, child);
        }
        List<Diff> children = new ArrayList<>();
        boolean below = false;
        for (ObjectTree child : this.children) {
            ObjectTree old = earlier.remove(child.name);
            Diff diff = old == null ? added(child) : child.diff(old);
            below |= diff.changedBelow();
            children.add(diff);
        }
        for (ObjectTree child : before.children) {
            if (earlier.containsKey(child.name)) {
                children.add(removed(child));
                below = true;
            }
        }
        boolean changed = !text.equals(before.text);
        return new Diff(name, text, changed ? before.text : null, changed ? Change.CHANGED : Change.SAME,
                below || changed, children);
    }

    private static Diff same(ObjectTree tree) {
        return new Diff(tree.name, tree.text, null, Change.SAME, false, tree.children.stream().map(ObjectTree::same).toList());
    }

    private static Diff added(ObjectTree tree) {
        return new Diff(tree.name, tree.text, null, Change.ADDED, true, tree.children.stream().map(ObjectTree::added).toList());
    }

    private static Diff removed(ObjectTree tree) {
        return new Diff(tree.name, tree.text, null, Change.REMOVED, true,
                tree.children.stream().map(ObjectTree::removed).toList());
    }

    /** The tree as indented text, one member a line (for tests and logs). */
    String render() {
        StringBuilder out = new StringBuilder();
        render(out, "");
        return out.toString();
    }

    private void render(StringBuilder out, String indent) {
        out.append(indent).append(name);
        if (!isElementLeaf()) {
            out.append(" = ").append(text);
        }
        out.append('\n');
        for (ObjectTree child : children) {
            child.render(out, indent + "  ");
        }
    }
}
