package dev.deja.check.internal;

import dev.deja.check.RowChange;
import dev.deja.check.TableSchema;
import dev.deja.node.Exposed;
import dev.deja.node.NodeId;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
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
import java.util.concurrent.ConcurrentHashMap;
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
    private final Map<NodeId, NodeObjects> nodes = new HashMap<>();
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

    /**
     * Forgets every node's objects and rows, keeping the class plans: the next extraction of a node starts a new run
     * (the explorer's next path), with oids numbered from 1 again.
     */
    public void newRun() {
        nodes.clear();
        nextOid = 1;
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
        NodeObjects objects = nodes.computeIfAbsent(node, n -> new NodeObjects());
        objects.epoch++;
        if (root != null) {
            walk(root, objects);
        }
        return diff(node, objects);
    }

    /**
     * What the extractions of one node know of its objects. The maps and lists are kept from one extraction to the
     * next and reused, so that an event that changes nothing allocates next to nothing: an object seen at the
     * current extraction carries its epoch, and whatever the previous extraction saw but this one did not is
     * dropped at the end (its row deleted, its oid forgotten).
     */
    private static final class NodeObjects {
        final IdentityHashMap<Object, Seen> seen = new IdentityHashMap<>();
        /** The objects seen at the previous and at this extraction, in the order they were first met. */
        List<Seen> previousOrder = new ArrayList<>();
        List<Seen> order = new ArrayList<>();
        /** The rows of the previous and of this extraction, in walk order. */
        List<Seen> previousRows = new ArrayList<>();
        List<Seen> rows = new ArrayList<>();
        final ArrayDeque<Seen> pending = new ArrayDeque<>();
        long epoch;
    }

    /** An object met by the walk or referenced from a column. */
    private static final class Seen {
        final Object object;
        long epoch;
        /** 0 until the object needs one: as a row, or as a column's reference. */
        long oid;
        /** Whether the object was already visited by this extraction's walk. */
        boolean visited;
        /** The row's table and normalized column values at the last extraction that saw it, or -1 and null. */
        int table = -1;
        Object[] values;
        /** Set by this extraction's walk: what the row was before it (for the diff). */
        int tableBefore = -1;
        Object[] valuesBefore;

        Seen(Object object) {
            this.object = object;
        }
    }

    /**
     * The record of {@code object} for this extraction, created the first time it is met. A record found in the
     * map was seen at the previous extraction (the diff drops the others), so it keeps its oid and row.
     */
    private static Seen see(Object object, NodeObjects objects) {
        Seen seen = objects.seen.get(object);
        if (seen == null) {
            seen = new Seen(object);
            objects.seen.put(object, seen);
        }
        if (seen.epoch != objects.epoch) {
            seen.epoch = objects.epoch;
            seen.visited = false;
            seen.tableBefore = seen.table;
            seen.valuesBefore = seen.values;
            seen.table = -1;
            seen.values = null;
            objects.order.add(seen);
        }
        return seen;
    }

    private void walk(Object root, NodeObjects objects) {
        ArrayDeque<Seen> pending = objects.pending;
        Seen first = see(root, objects);
        first.visited = true;
        pending.add(first);
        while (!pending.isEmpty()) {
            Seen row = pending.removeFirst();
            Object object = row.object;
            ClassPlan plan = plan(object.getClass());
            if (plan.table >= 0) {
                oid(row);
                row.table = plan.table;
                row.values = unchanged(row, plan, objects) ? row.valuesBefore : readRow(object, plan, objects);
                objects.rows.add(row);
            }
            if (plan.container) {
                switch (object) {
                    case Map<?, ?> map -> {
                        for (Map.Entry<?, ?> entry : map.entrySet()) {
                            enqueue(entry.getKey(), objects);
                            enqueue(entry.getValue(), objects);
                        }
                    }
                    case Collection<?> collection -> {
                        for (Object element : collection) {
                            enqueue(element, objects);
                        }
                    }
                    case Optional<?> optional -> {
                        if (optional.isPresent()) {
                            enqueue(optional.get(), objects);
                        }
                    }
                    default -> {
                        if (object.getClass().isArray() && !object.getClass().getComponentType().isPrimitive()) {
                            int length = Array.getLength(object);
                            for (int i = 0; i < length; i++) {
                                enqueue(Array.get(object, i), objects);
                            }
                        }
                    }
                }
            } else {
                for (Accessor field : plan.walkFields) {
                    enqueue(field.read(object), objects);
                }
            }
        }
    }

    private Object[] readRow(Object object, ClassPlan plan, NodeObjects objects) {
        Object[] values = new Object[plan.columns.length];
        for (int c = 0; c < values.length; c++) {
            values[c] = normalize(plan.columns[c].read(object), objects);
        }
        return values;
    }

    /**
     * Whether the row of {@code row}'s object is still, column for column, what the previous extraction normalized
     * it to. Most events change none of a node's rows, and comparing in place spares building every row's values
     * (and the lists and maps of its collection-valued columns) only to find them equal. Marks what the columns
     * reference as seen, as {@link #normalize} does, whatever the answer.
     */
    private boolean unchanged(Seen row, ClassPlan plan, NodeObjects objects) {
        Object[] before = row.valuesBefore;
        if (row.tableBefore != plan.table || before == null) {
            return false;
        }
        for (int c = 0; c < before.length; c++) {
            if (!matches(plan.columns[c].read(row.object), before[c], objects)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code normalize(value)} equals {@code normalized}, found without building it where the value's order
     * is its own (lists, arrays, sorted and linked sets and maps, records); a hash-ordered set or map, whose
     * normalized form is sorted, is normalized and compared, and so is a single value (a number, a string, an enum,
     * a node id, a reference to a row), whose normalized form builds nothing worth sparing.
     */
    private boolean matches(Object value, Object normalized, NodeObjects objects) {
        if (value instanceof Optional<?> optional) {
            return optional.isPresent() ? matches(optional.get(), normalized, objects) : normalized == null;
        }
        // The values normalize() builds a map or a list for (a node id is a record, but normalizes to its name).
        if (value instanceof Map<?, ?> || value instanceof Collection<?>
                || (value instanceof Record && !(value instanceof NodeId)) || (value != null && value.getClass().isArray())) {
            return matchesObject(value, normalized, objects);
        }
        return Objects.equals(normalize(value, objects), normalized);
    }

    /** {@link #matches} for a map, a collection, a record or an array. */
    private boolean matchesObject(Object value, Object normalized, NodeObjects objects) {
        ClassPlan plan = plan(value.getClass());
        if (plan.table >= 0) {
            return normalized instanceof Long oid && oid == oid(see(value, objects));
        }
        if (value instanceof Map<?, ?> map) {
            if (!(map instanceof LinkedHashMap<?, ?> || map instanceof java.util.SortedMap<?, ?>)) {
                return normalizeObject(value, objects).equals(normalized);
            }
            if (!(normalized instanceof Map<?, ?> copy) || copy.size() != map.size()) {
                return false;
            }
            var copied = copy.entrySet().iterator();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                Map.Entry<?, ?> other = copied.next();
                if (!matches(entry.getKey(), other.getKey(), objects)
                        || !matches(entry.getValue(), other.getValue(), objects)) {
                    return false;
                }
            }
            return true;
        }
        if (value instanceof Collection<?> collection) {
            if (value instanceof Set<?> && !(value instanceof SortedSet<?>) && !(value instanceof java.util.LinkedHashSet<?>)) {
                return normalizeObject(value, objects).equals(normalized);
            }
            if (!(normalized instanceof List<?> copy) || copy.size() != collection.size()) {
                return false;
            }
            int i = 0;
            for (Object element : collection) {
                if (!matches(element, copy.get(i++), objects)) {
                    return false;
                }
            }
            return true;
        }
        if (value instanceof Record record) {
            if (!(normalized instanceof Map<?, ?> copy)) {
                return false;
            }
            if (plan.recordComponents == null) {
                plan.recordComponents = recordComponents(record.getClass());
            }
            if (copy.size() != plan.recordComponents.size()) {
                return false;
            }
            for (Accessor component : plan.recordComponents) {
                if (!copy.containsKey(component.name())
                        || !matches(component.read(record), copy.get(component.name()), objects)) {
                    return false;
                }
            }
            return true;
        }
        // An array, the one kind left.
        int length = Array.getLength(value);
        if (!(normalized instanceof List<?> copy) || copy.size() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (!matches(Array.get(value, i), copy.get(i), objects)) {
                return false;
            }
        }
        return true;
    }

    private static void enqueue(Object child, NodeObjects objects) {
        if (child != null && !isLeaf(child.getClass())) {
            Seen seen = see(child, objects);
            if (!seen.visited) {
                seen.visited = true;
                objects.pending.addLast(seen);
            }
        }
    }

    private long oid(Seen seen) {
        if (seen.oid == 0) {
            seen.oid = nextOid++;
        }
        return seen.oid;
    }

    /**
     * Deletes (in the previous extraction's row order) and then inserts and updates (in this one's), and forgets
     * the objects this extraction did not see.
     */
    private List<RowChange> diff(NodeId node, NodeObjects objects) {
        List<RowChange> changes = List.of();
        long epoch = objects.epoch;
        for (Seen before : objects.previousRows) {
            // Gone, or still there but no longer a row (it was a row of the previous extraction).
            if (before.epoch != epoch || before.table < 0) {
                changes = add(changes, new RowChange(schemas.get(before.epoch != epoch ? before.table : before.tableBefore).name(),
                        RowChange.Kind.DELETE, node, before.oid, Map.of()));
            }
        }
        for (Seen row : objects.rows) {
            if (row.tableBefore != row.table) {
                changes = add(changes, new RowChange(schemas.get(row.table).name(), RowChange.Kind.INSERT, node, row.oid,
                        valueMap(row)));
            } else if (!Arrays.equals(row.valuesBefore, row.values)) {
                changes = add(changes, new RowChange(schemas.get(row.table).name(), RowChange.Kind.UPDATE, node, row.oid,
                        valueMap(row)));
            }
            row.valuesBefore = null;
        }
        for (Seen gone : objects.previousOrder) {
            if (gone.epoch != epoch) {
                objects.seen.remove(gone.object);
            }
        }
        List<Seen> recycled = objects.previousOrder;
        recycled.clear();
        objects.previousOrder = objects.order;
        objects.order = recycled;
        recycled = objects.previousRows;
        recycled.clear();
        objects.previousRows = objects.rows;
        objects.rows = recycled;
        return changes;
    }

    private static List<RowChange> add(List<RowChange> changes, RowChange change) {
        List<RowChange> out = changes.isEmpty() ? new ArrayList<>() : changes;
        out.add(change);
        return out;
    }

    private Map<String, Object> valueMap(Seen row) {
        List<String> columns = schemas.get(row.table).columns();
        Map<String, Object> values = new LinkedHashMap<>();
        for (int c = 0; c < columns.size(); c++) {
            values.put(columns.get(c), row.values[c]);
        }
        return Collections.unmodifiableMap(values);
    }

    // ---- values ----

    private Object normalize(Object value, NodeObjects objects) {
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
            case Optional<?> optional -> optional.isPresent() ? normalize(optional.get(), objects) : null;
            default -> normalizeObject(value, objects);
        };
    }

    private Object normalizeObject(Object value, NodeObjects objects) {
        ClassPlan plan = plan(value.getClass());
        if (plan.table >= 0) {
            return oid(see(value, objects));
        }
        if (value instanceof Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            List<? extends Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
            if (!(map instanceof LinkedHashMap<?, ?>) && !(map instanceof java.util.SortedMap<?, ?>)) {
                entries = sortedEntries(entries);
            }
            for (Map.Entry<?, ?> entry : entries) {
                copy.put(normalize(entry.getKey(), objects), normalize(entry.getValue(), objects));
            }
            return Collections.unmodifiableMap(copy);
        }
        if (value instanceof Collection<?> collection) {
            List<Object> copy = new ArrayList<>(collection.size());
            for (Object element : collection) {
                copy.add(normalize(element, objects));
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
                copy.add(normalize(Array.get(value, i), objects));
            }
            return Collections.unmodifiableList(copy);
        }
        if (value instanceof Record record) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            if (plan.recordComponents == null) {
                plan.recordComponents = recordComponents(record.getClass());
            }
            for (Accessor component : plan.recordComponents) {
                copy.put(component.name(), normalize(component.read(record), objects));
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

    private static List<Accessor> recordComponents(Class<?> type) {
        List<Accessor> components = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            Method accessor = component.getAccessor();
            accessor.setAccessible(true);
            components.add(Accessor.of(accessor, component.getName()));
        }
        return List.copyOf(components);
    }

    /**
     * Reads a field, or calls a no-argument method, through a method handle: several times faster than
     * {@link Field#get} and {@link Method#invoke}, which check access and wrap on every call.
     */
    private record Accessor(String name, MethodHandle handle, AccessibleObject member) {
        private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);

        /**
         * The handles made so far, by declaring class, kept for the process: every check of a process makes its own
         * plans, and a handle made again spins new lambda-form classes that the JIT compiles again on every check.
         * A {@link ClassValue} lets a node class (and its handles) be unloaded with its class loader.
         */
        private static final ClassValue<Map<AccessibleObject, MethodHandle>> HANDLES = new ClassValue<>() {
            @Override
            protected Map<AccessibleObject, MethodHandle> computeValue(Class<?> type) {
                return new ConcurrentHashMap<>();
            }
        };

        /** For an accessible field or method. */
        static Accessor of(AccessibleObject member, String name) {
            Class<?> declaring = ((Member) member).getDeclaringClass();
            MethodHandle handle = HANDLES.get(declaring).computeIfAbsent(member, Accessor::handle);
            return new Accessor(name, handle, member);
        }

        private static MethodHandle handle(AccessibleObject member) {
            try {
                MethodHandle handle = member instanceof Field field ? MethodHandles.lookup().unreflectGetter(field)
                        : MethodHandles.lookup().unreflect((Method) member);
                return handle.asType(GETTER);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + member + ": " + e.getMessage(), e);
            }
        }

        Object read(Object target) {
            try {
                return (Object) handle.invokeExact(target);
            } catch (Throwable e) {
                if (member instanceof Method method) {
                    throw new IllegalStateException("the exposed method " + method.getDeclaringClass().getSimpleName() + "."
                            + method.getName() + "() threw " + e, e);
                }
                throw new IllegalStateException("cannot read " + member + ": " + e, e);
            }
        }
    }

    // ---- plans ----

    /** What to do with objects of one concrete class. */
    private static final class ClassPlan {
        int table = -1;
        Accessor[] columns = new Accessor[0];
        boolean container;
        List<Accessor> walkFields = List.of();
        /** A record's component accessors, in declaration order; looked up when a column first holds one. */
        List<Accessor> recordComponents;
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
                plan.columns = new Accessor[names.size()];
                for (int c = 0; c < names.size(); c++) {
                    plan.columns[c] = Accessor.of(Objects.requireNonNull(findColumn(type, names.get(c))), names.get(c));
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
        List<Accessor> walk = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || !mayReach(field.getGenericType())) {
                    continue;
                }
                if (field.trySetAccessible()) {
                    walk.add(Accessor.of(field, field.getName()));
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
