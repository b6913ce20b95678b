package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Renders a live object graph into an {@link ObjectTree} by reflection: a user object shows its instance
 * fields (superclass fields first), a record its components, a collection or array its elements, a map its
 * entries, and everything else (numbers, strings, enums, node ids, other JDK values) its text.
 *
 * <p>Hash-ordered sets and maps are sorted by their elements' text so that two renderings of equal states
 * are equal (their iteration order can differ between runs). A cycle back to an object on the current path
 * is shown as such; at most {@value #MAX_ELEMENTS} elements of a collection and {@value #MAX_DEPTH} levels are
 * shown. Why not the checker's state extractor: it reads only the declared tables' columns and follows only
 * fields that can reach them, while this shows a node's whole state for a person. Not thread-safe; use on
 * the replay thread while the objects do not change.
 */
final class ObjectTrees {
    static final int MAX_ELEMENTS = 200;
    static final int MAX_DEPTH = 12;
    private static final int MAX_TEXT = 300;
    private static final Map<Class<?>, List<Field>> FIELDS = new ConcurrentHashMap<>();

    private final IdentityHashMap<Object, Boolean> path = new IdentityHashMap<>();

    private ObjectTrees() {
    }

    /** The tree of {@code root} under {@code name}. */
    static ObjectTree render(String name, Object root) {
        return new ObjectTrees().value(name, root, 0);
    }

    private ObjectTree value(String name, Object value, int depth) {
        if (value == null) {
            return ObjectTree.leaf(name, "", "null");
        }
        Class<?> type = value.getClass();
        String typeName = simpleName(type);
        if (isLeaf(value)) {
            return ObjectTree.leaf(name, typeName, text(value));
        }
        if (path.containsKey(value)) {
            return ObjectTree.leaf(name, typeName, "(cycle: " + typeName + " shown above)");
        }
        if (depth >= MAX_DEPTH) {
            return ObjectTree.leaf(name, typeName, typeName + " (deeper than " + MAX_DEPTH + " levels, not shown)");
        }
        path.put(value, Boolean.TRUE);
        try {
            return inner(name, value, type, typeName, depth + 1);
        } finally {
            path.remove(value);
        }
    }

    private ObjectTree inner(String name, Object value, Class<?> type, String typeName, int depth) {
        List<ObjectTree> children = new ArrayList<>();
        switch (value) {
            case Optional<?> optional -> {
                return optional.isPresent() ? value(name, optional.get(), depth) : ObjectTree.leaf(name, typeName, "Optional.empty");
            }
            case Map<?, ?> map -> {
                List<Map.Entry<String, Object>> entries = new ArrayList<>();
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    entries.add(Map.entry(keyText(entry.getKey()), entry.getValue() == null ? NULL : entry.getValue()));
                }
                if (!(map instanceof SortedMap<?, ?>) && !(map instanceof LinkedHashMap<?, ?>)) {
                    entries.sort(Map.Entry.comparingByKey(KEY_ORDER));
                }
                addLimited(children, entries, depth);
                return new ObjectTree(name, typeName, typeName + " (" + map.size() + (map.size() == 1 ? " entry)" : " entries)"), children);
            }
            case Collection<?> collection -> {
                List<ObjectTree> elements = new ArrayList<>();
                int index = 0;
                for (Object element : collection) {
                    if (index == MAX_ELEMENTS) {
                        break;
                    }
                    elements.add(value("[" + index++ + "]", element, depth));
                }
                if (value instanceof java.util.Set<?>) {
                    if (!(value instanceof SortedSet<?>) && !(value instanceof LinkedHashSet<?>)) {
                        // Hash order is not stable: sort by text.
                        elements.sort(Comparator.comparing(ObjectTrees::elementKey, KEY_ORDER));
                    }
                    // A set's elements are named by what they are, not where they are, so that a diff matches an
                    // element with itself: adding one shows one added element, not every later index changed.
                    List<ObjectTree> named = new ArrayList<>();
                    java.util.Set<String> taken = new java.util.HashSet<>();
                    for (ObjectTree e : elements) {
                        String key = ObjectTree.ELEMENT + elementKey(e);
                        for (int copy = 2; !taken.add(key); copy++) {
                            key = ObjectTree.ELEMENT + elementKey(e) + " #" + copy;
                        }
                        named.add(new ObjectTree(key, e.type(), e.text(), e.children()));
                    }
                    elements = named;
                }
                children.addAll(elements);
                more(children, collection.size());
                return new ObjectTree(name, typeName, typeName + " (" + collection.size()
                        + (collection.size() == 1 ? " element)" : " elements)"), children);
            }
            default -> {
            }
        }
        if (type.isArray()) {
            int length = Array.getLength(value);
            if (type.getComponentType() == byte.class) {
                byte[] bytes = (byte[]) value;
                String hex = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 64));
                return ObjectTree.leaf(name, typeName, "byte[" + length + "] " + hex + (length > 64 ? "…" : ""));
            }
            for (int i = 0; i < Math.min(length, MAX_ELEMENTS); i++) {
                children.add(value("[" + i + "]", Array.get(value, i), depth));
            }
            more(children, length);
            return new ObjectTree(name, typeName, simpleName(type.getComponentType()) + "[" + length + "]", children);
        }
        if (value instanceof Record record) {
            for (RecordComponent component : type.getRecordComponents()) {
                children.add(value(component.getName(), read(component, record), depth));
            }
            return new ObjectTree(name, typeName, typeName, children);
        }
        for (Field field : fields(type)) {
            Object member;
            try {
                member = field.get(value);
            } catch (IllegalAccessException | RuntimeException e) {
                children.add(ObjectTree.leaf(field.getName(), simpleName(field.getType()), "(cannot be read: " + e.getMessage() + ")"));
                continue;
            }
            children.add(value(field.getName(), member, depth));
        }
        return new ObjectTree(name, typeName, typeName, children);
    }

    /** An element's identity in its set: its text, or for a composite its members' texts on one line. */
    static String elementKey(ObjectTree element) {
        if (element.children().isEmpty()) {
            return element.text();
        }
        StringBuilder key = new StringBuilder(element.type()).append('(');
        for (int i = 0; i < element.children().size(); i++) {
            ObjectTree member = element.children().get(i);
            key.append(i == 0 ? "" : ", ").append(member.name()).append('=').append(elementKey(member));
            if (key.length() > MAX_TEXT) {
                return key.substring(0, MAX_TEXT) + "…)";
            }
        }
        return key.append(')').toString();
    }

    /** Stands for a null map value in the entry list (entries refuse nulls). */
    private static final Object NULL = new Object();

    private void addLimited(List<ObjectTree> children, List<Map.Entry<String, Object>> entries, int depth) {
        for (int i = 0; i < Math.min(entries.size(), MAX_ELEMENTS); i++) {
            Map.Entry<String, Object> entry = entries.get(i);
            children.add(value(entry.getKey(), entry.getValue() == NULL ? null : entry.getValue(), depth));
        }
        more(children, entries.size());
    }

    private static void more(List<ObjectTree> children, int size) {
        if (size > MAX_ELEMENTS) {
            children.add(ObjectTree.leaf("…", "", (size - MAX_ELEMENTS) + " more not shown"));
        }
    }

    /** Orders keys as people expect: numbers by value, then everything else by text. */
    private static final Comparator<String> KEY_ORDER = (a, b) -> {
        boolean numberA = isNumber(a);
        boolean numberB = isNumber(b);
        if (numberA && numberB) {
            return new java.math.BigDecimal(a).compareTo(new java.math.BigDecimal(b));
        }
        if (numberA != numberB) {
            return numberA ? -1 : 1;
        }
        return a.compareTo(b);
    };

    private static boolean isNumber(String text) {
        return text.matches("-?\\d+(\\.\\d+)?");
    }

    private static Object read(RecordComponent component, Record record) {
        try {
            var accessor = component.getAccessor();
            accessor.setAccessible(true);
            return accessor.invoke(record);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(cannot be read: " + e + ")";
        }
    }

    private static List<Field> fields(Class<?> type) {
        return FIELDS.computeIfAbsent(type, t -> {
            List<Class<?>> chain = new ArrayList<>();
            for (Class<?> c = t; c != null && c != Object.class; c = c.getSuperclass()) {
                chain.addFirst(c);
            }
            List<Field> fields = new ArrayList<>();
            for (Class<?> c : chain) {
                for (Field field : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic() && field.trySetAccessible()) {
                        fields.add(field);
                    }
                }
            }
            return List.copyOf(fields);
        });
    }

    private static boolean isLeaf(Object value) {
        if (value instanceof CharSequence || value instanceof Number || value instanceof Boolean
                || value instanceof Character || value instanceof Enum<?> || value instanceof NodeId
                || value instanceof TimerId || value instanceof Class<?>) {
            return true;
        }
        if (value instanceof Collection<?> || value instanceof Map<?, ?> || value instanceof Optional<?>
                || value.getClass().isArray() || value instanceof Record) {
            return false;
        }
        Class<?> type = value.getClass();
        String name = type.getName();
        // Other values of the platform (times, UUIDs, atomics, ...) show as their text; lambdas too.
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.") || name.startsWith("sun.")
                || type.isSynthetic() || type.isHidden();
    }

    private static String text(Object value) {
        String text = switch (value) {
            case CharSequence chars -> "\"" + chars + "\"";
            case Character c -> "'" + c + "'";
            case Enum<?> e -> e.name();
            case Class<?> c -> c.getName();
            default -> String.valueOf(value);
        };
        return text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "…" : text;
    }

    private static String keyText(Object key) {
        if (key == null) {
            return "null";
        }
        return isLeaf(key) ? (key instanceof CharSequence chars ? chars.toString() : text(key)) : String.valueOf(key);
    }

    static String simpleName(Class<?> type) {
        if (type.isArray()) {
            return simpleName(type.getComponentType()) + "[]";
        }
        String name = type.getName();
        return name.substring(Math.max(name.lastIndexOf('.'), name.lastIndexOf('$')) + 1);
    }
}
