package dev.deja.check.internal;

import dev.deja.check.RowChange;
import dev.deja.check.TableSchema;
import dev.deja.node.Exposed;
import dev.deja.node.NodeId;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

/**
 * Turns the live objects of replayed nodes into rows of the declared tables and diffs them with the rows of
 * the previous extraction of the same node.
 *
 * <p>For each concrete class met, a plan is computed once: which of its fields can (by their declared type)
 * lead to an object of a declared class; the walk follows only those, so a node's byte arrays, strings and
 * maps of numbers are never visited. Objects of the JDK are entered only when they are collections, maps,
 * {@link Optional}s or arrays. Each object gets an {@code oid} the first time it is seen as a row (or as a
 * reference from a column) and keeps it as long as it stays reachable from its node between extractions;
 * oids are never reused within a run.
 *
 * <p>Invariant "rows-match-objects": after {@link #extract} the previous rows of a node are exactly the rows
 * of its reachable declared objects, so the next diff starts from the truth. Confined to the replay thread.
 */
public final class StateExtractor {
    private final List<TableSchema> schemas;
    private final List<Class<?>> tableClasses;
    private final Map<Class<?>, ClassPlan> plans = new HashMap<>();
    private final Map<Type, Boolean> mayReachCache = new HashMap<>();
    private final Map<NodeId, NodeRows> nodes = new HashMap<>();
    private long nextOid = 1;

    /**
     * Resolves the schemas' classes with {@code loader}; a class that cannot be loaded, or a column that is
     * none of field, record component or {@link Exposed} method, is refused naming the table.
     */
    public StateExtractor(List<TableSchema> schemas, ClassLoader loader) {
        this.schemas = List.copyOf(schemas);
        List<Class<?>> classes = new ArrayList<>();
        for (TableSchema schema : schemas) {
            try {
                classes.add(Class.forName(schema.className(), false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalArgumentException("table " + schema.name() + ": class " + schema.className()
                        + " cannot be loaded (is it on the classpath?)");
            }
        }
        this.tableClasses = List.copyOf(classes);
        for (int i = 0; i < schemas.size(); i++) {
            for (String column : schemas.get(i).columns()) {
                if (findColumn(tableClasses.get(i), column) == null) {
                    throw new IllegalArgumentException("table " + schemas.get(i).name() + ": class "
                            + schemas.get(i).className() + " has no field, record component or @Exposed method '"
                            + column + "'");
                }
            }
        }
    }

    /** The classes that have a cached plan, i.e. whose objects were visited (for tests). */
    Set<Class<?>> plannedClasses() {
        return Set.copyOf(plans.keySet());
    }

    /**
     * Extracts the rows of {@code root} (the node object of {@code node}, or {@code null} when the node is not
     * live, which deletes all its rows) and returns the changes since the last extraction of that node.
     */
    public List<RowChange> extract(NodeId node, Object root) {
        NodeRows previous = nodes.computeIfAbsent(node, n -> new NodeRows());
        NodeRows current = new NodeRows();
        if (root != null) {
            walk(root, previous, current);
        }
        List<RowChange> changes = diff(node, previous, current);
        nodes.put(node, current);
        return changes;
    }

    private record Row(int table, Map<String, Object> values) {
    }

    /** The rows of one node at one extraction, and the oids of every object that got one. */
    private static final class NodeRows {
        final IdentityHashMap<Object, Long> oids = new IdentityHashMap<>();
        final LinkedHashMap<Long, Row> rows = new LinkedHashMap<>();
    }

    private void walk(Object root, NodeRows previous, NodeRows current) {
        IdentityHashMap<Object, Boolean> visited = new IdentityHashMap<>();
        ArrayDeque<Object> pending = new ArrayDeque<>();
        pending.add(root);
        visited.put(root, Boolean.TRUE);
        while (!pending.isEmpty()) {
            Object object = pending.removeFirst();
            ClassPlan plan = plan(object.getClass());
            if (plan.table >= 0) {
                long oid = oid(object, previous, current);
                Map<String, Object> values = new LinkedHashMap<>();
                for (int c = 0; c < plan.columns.length; c++) {
                    values.put(plan.columnNames[c], normalize(read(plan.columns[c], object), previous, current));
                }
                current.rows.put(oid, new Row(plan.table, Collections.unmodifiableMap(values)));
            }
            for (Object child : children(object, plan)) {
                if (child != null && !isLeaf(child.getClass()) && visited.put(child, Boolean.TRUE) == null) {
                    pending.addLast(child);
                }
            }
        }
    }

    private List<Object> children(Object object, ClassPlan plan) {
        List<Object> children = new ArrayList<>();
        if (plan.container) {
            switch (object) {
                case Map<?, ?> map -> {
                    for (Map.Entry<?, ?> entry : map.entrySet()) {
                        children.add(entry.getKey());
                        children.add(entry.getValue());
                    }
                }
                case Collection<?> collection -> children.addAll(collection);
                case Optional<?> optional -> optional.ifPresent(children::add);
                default -> {
                    if (object.getClass().isArray() && !object.getClass().getComponentType().isPrimitive()) {
                        int length = Array.getLength(object);
                        for (int i = 0; i < length; i++) {
                            children.add(Array.get(object, i));
                        }
                    }
                }
            }
            return children;
        }
        for (Field field : plan.walkFields) {
            try {
                children.add(field.get(object));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + field + ": " + e.getMessage(), e);
            }
        }
        return children;
    }

    private long oid(Object object, NodeRows previous, NodeRows current) {
        Long oid = current.oids.get(object);
        if (oid == null) {
            oid = previous.oids.get(object);
            if (oid == null) {
                oid = nextOid++;
            }
            current.oids.put(object, oid);
        }
        return oid;
    }

    private List<RowChange> diff(NodeId node, NodeRows previous, NodeRows current) {
        List<RowChange> changes = new ArrayList<>();
        for (Map.Entry<Long, Row> entry : previous.rows.entrySet()) {
            Row now = current.rows.get(entry.getKey());
            if (now == null || now.table() != entry.getValue().table()) {
                changes.add(new RowChange(tableName(entry.getValue()), RowChange.Kind.DELETE, node, entry.getKey(), Map.of()));
            }
        }
        for (Map.Entry<Long, Row> entry : current.rows.entrySet()) {
            Row before = previous.rows.get(entry.getKey());
            Row now = entry.getValue();
            if (before == null || before.table() != now.table()) {
                changes.add(new RowChange(tableName(now), RowChange.Kind.INSERT, node, entry.getKey(), now.values()));
            } else if (!before.values().equals(now.values())) {
                changes.add(new RowChange(tableName(now), RowChange.Kind.UPDATE, node, entry.getKey(), now.values()));
            }
        }
        return changes;
    }

    private String tableName(Row row) {
        return schemas.get(row.table()).name();
    }

    // ---- values ----

    private Object normalize(Object value, NodeRows previous, NodeRows current) {
        return switch (value) {
            case null -> null;
            case Boolean b -> b;
            case Long l -> l;
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case Byte b -> b.longValue();
            case Character c -> c.toString();
            case Double d -> d;
            case Float f -> f.doubleValue();
            case String s -> s;
            case Enum<?> e -> e.name();
            case NodeId id -> id.value();
            case Optional<?> optional -> optional.isPresent() ? normalize(optional.get(), previous, current) : null;
            default -> normalizeObject(value, previous, current);
        };
    }

    private Object normalizeObject(Object value, NodeRows previous, NodeRows current) {
        if (plan(value.getClass()).table >= 0) {
            return oid(value, previous, current);
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            List<? extends Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
            if (!(map instanceof LinkedHashMap<?, ?>) && !(map instanceof java.util.SortedMap<?, ?>)) {
                entries = sortedEntries(entries);
            }
            for (Map.Entry<?, ?> entry : entries) {
                copy.put(normalize(entry.getKey(), previous, current), normalize(entry.getValue(), previous, current));
            }
            return Collections.unmodifiableMap(copy);
        }
        if (value instanceof Collection<?> collection) {
            List<Object> copy = new ArrayList<>(collection.size());
            for (Object element : collection) {
                copy.add(normalize(element, previous, current));
            }
            // Hash-ordered sets are sorted so that equal states give equal tuples.
            if (value instanceof Set<?> && !(value instanceof SortedSet<?>) && !(value instanceof java.util.LinkedHashSet<?>)) {
                sortIfComparable(copy);
            }
            return Collections.unmodifiableList(copy);
        }
        if (value.getClass().isArray()) {
            int length = Array.getLength(value);
            List<Object> copy = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                copy.add(normalize(Array.get(value, i), previous, current));
            }
            return Collections.unmodifiableList(copy);
        }
        if (value instanceof Record record) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                Method accessor = component.getAccessor();
                accessor.setAccessible(true);
                copy.put(component.getName(), normalize(invoke(accessor, record), previous, current));
            }
            return Collections.unmodifiableMap(copy);
        }
        return value.toString();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void sortIfComparable(List<Object> values) {
        Class<?> kind = null;
        for (Object value : values) {
            if (!(value instanceof Comparable) || (kind != null && value.getClass() != kind)) {
                return;
            }
            kind = value.getClass();
        }
        ((List) values).sort(null);
    }

    private static List<? extends Map.Entry<?, ?>> sortedEntries(List<? extends Map.Entry<?, ?>> entries) {
        Class<?> kind = null;
        for (Map.Entry<?, ?> entry : entries) {
            Object key = entry.getKey() instanceof NodeId id ? id.value() : entry.getKey();
            if (!(key instanceof Comparable) || (kind != null && key.getClass() != kind)) {
                return entries;
            }
            kind = key.getClass();
        }
        List<Map.Entry<?, ?>> sorted = new ArrayList<>(entries);
        sorted.sort(StateExtractor::compareKeys);
        return sorted;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(Map.Entry<?, ?> a, Map.Entry<?, ?> b) {
        Object x = a.getKey() instanceof NodeId id ? id.value() : a.getKey();
        Object y = b.getKey() instanceof NodeId id ? id.value() : b.getKey();
        return ((Comparable) x).compareTo(y);
    }

    private static Object read(AccessibleObject column, Object object) {
        try {
            if (column instanceof Field field) {
                return field.get(object);
            }
            return invoke((Method) column, object);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + column + ": " + e.getMessage(), e);
        }
    }

    private static Object invoke(Method method, Object object) {
        try {
            return method.invoke(object);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + method + ": " + e.getMessage(), e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("the exposed method " + method.getDeclaringClass().getSimpleName() + "."
                    + method.getName() + "() threw " + e.getCause(), e.getCause());
        }
    }

    // ---- plans ----

    /** What to do with objects of one concrete class. */
    private static final class ClassPlan {
        int table = -1;
        AccessibleObject[] columns = new AccessibleObject[0];
        String[] columnNames = new String[0];
        boolean container;
        List<Field> walkFields = List.of();
    }

    private ClassPlan plan(Class<?> type) {
        ClassPlan plan = plans.get(type);
        if (plan == null) {
            plan = computePlan(type);
            plans.put(type, plan);
        }
        return plan;
    }

    private ClassPlan computePlan(Class<?> type) {
        ClassPlan plan = new ClassPlan();
        for (int t = 0; t < tableClasses.size(); t++) {
            if (tableClasses.get(t).isAssignableFrom(type)) {
                plan.table = t;
                List<String> names = schemas.get(t).columns();
                plan.columnNames = names.toArray(String[]::new);
                plan.columns = new AccessibleObject[names.size()];
                for (int c = 0; c < names.size(); c++) {
                    plan.columns[c] = Objects.requireNonNull(findColumn(type, names.get(c)));
                }
                break;
            }
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                || type == Optional.class) {
            plan.container = !type.isArray() || mayReach(type.getComponentType());
            return plan;
        }
        if (isJdk(type)) {
            return plan;
        }
        List<Field> walk = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || !mayReach(field.getGenericType())) {
                    continue;
                }
                if (field.trySetAccessible()) {
                    walk.add(field);
                }
            }
        }
        plan.walkFields = List.copyOf(walk);
        return plan;
    }

    /** Values that never hold other objects worth visiting. */
    private static boolean isLeaf(Class<?> type) {
        return type == String.class || type == Long.class || type == Integer.class || type == NodeId.class
                || type == Boolean.class || type == Double.class || type.isEnum();
    }

    private static boolean isJdk(Class<?> type) {
        String name = type.getName();
        // The node API's handles and the runtime behind them are infrastructure, never user state.
        return type.isPrimitive() || name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.") || type == dev.deja.node.Env.class || type == dev.deja.node.Storage.class
                || name.startsWith("dev.deja.runtime.") || name.startsWith("dev.deja.trace.")
                || name.startsWith("dev.deja.recorder.") || name.startsWith("dev.deja.replay.");
    }

    /** Whether a value of this declared type can be, or lead to, an object of a declared class. */
    private boolean mayReach(Type type) {
        Boolean cached = mayReachCache.get(type);
        if (cached != null) {
            return cached;
        }
        // Assume no while computing, which ends recursion on cyclic types; a cycle adds nothing new.
        mayReachCache.put(type, Boolean.FALSE);
        boolean result = computeMayReach(type);
        mayReachCache.put(type, result);
        return result;
    }

    private boolean computeMayReach(Type type) {
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            if (Collection.class.isAssignableFrom(raw) || Map.class.isAssignableFrom(raw) || raw == Optional.class) {
                for (Type argument : parameterized.getActualTypeArguments()) {
                    if (mayReach(argument)) {
                        return true;
                    }
                }
                return false;
            }
            return mayReach(raw);
        }
        if (type instanceof GenericArrayType array) {
            return mayReach(array.getGenericComponentType());
        }
        if (!(type instanceof Class<?> c)) {
            return true; // type variables and wildcards: anything may be there
        }
        if (c.isPrimitive() || c == String.class || c == NodeId.class || c.isEnum() || Number.class.isAssignableFrom(c)
                || c == Boolean.class || c == Character.class || c == Class.class) {
            return false;
        }
        if (c.isArray()) {
            return mayReach(c.getComponentType());
        }
        for (Class<?> declared : tableClasses) {
            if (c.isAssignableFrom(declared) || declared.isAssignableFrom(c)) {
                return true;
            }
        }
        if (Collection.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c) || c == Optional.class) {
            return true; // raw container: unknown elements
        }
        if (isJdk(c)) {
            return false;
        }
        if (isJdk(c)) {
            return false;
        }
        if (c.isInterface()) {
            return true; // an implementation met at run time gets its own plan
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field field : k.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) && mayReach(field.getGenericType())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The field, record component accessor or {@link Exposed} method named {@code column} (or, for a Python-style
     * {@code snake_case} name, its {@code camelCase} form), made accessible.
     */
    static AccessibleObject findColumn(Class<?> type, String column) {
        AccessibleObject exact = findMember(type, column);
        String camel = camelCase(column);
        return exact != null || camel.equals(column) ? exact : findMember(type, camel);
    }

    static String camelCase(String name) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : name.toCharArray()) {
            if (c == '_' && !out.isEmpty()) {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    private static AccessibleObject findMember(Class<?> type, String column) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method method : c.getDeclaredMethods()) {
                if (method.getName().equals(column) && method.getParameterCount() == 0
                        && method.isAnnotationPresent(Exposed.class) && method.trySetAccessible()) {
                    return method;
                }
            }
            if (c.isRecord()) {
                for (RecordComponent component : c.getRecordComponents()) {
                    if (component.getName().equals(column) && component.getAccessor().trySetAccessible()) {
                        return component.getAccessor();
                    }
                }
            }
            for (Field field : c.getDeclaredFields()) {
                if (field.getName().equals(column) && !Modifier.isStatic(field.getModifiers()) && field.trySetAccessible()) {
                    return field;
                }
            }
        }
        return null;
    }
}
