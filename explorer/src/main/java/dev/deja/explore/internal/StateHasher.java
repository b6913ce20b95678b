package dev.deja.explore.internal;

import dev.deja.node.NodeId;
import dev.deja.sim.ChoicePoint;
import dev.deja.sim.StepObserver;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * A 64-bit hash of a simulated system's state: every live node's object graph (all instance fields reachable from
 * the node object, as the checker's extraction walks them, leaving out {@code transient} and static fields and the
 * fields the user excludes) and the pending events (kind, node, sender, message bytes or timer tag, and how long from
 * now each is due; not their ids). Due times shape the future, since only the events within the exploration window of
 * the earliest one are enabled; they count from the virtual clock, so two states that differ only by a shift in time
 * hash the same, while one node's timer re-armed as another's deadline came closer does not (a hash without due times
 * let depth-first search prune a failover pair's heartbeats as repeats).
 * Hash-ordered sets and maps hash the same whatever their iteration order; a shared or cyclic object is hashed once
 * and referred to by its position in the walk, so the hash follows the shape of the graph, not its addresses.
 *
 * <p>Not thread-safe: one per path runner.
 */
final class StateHasher {
    private static final long PRIME = 0x100000001B3L;
    private final Set<String> excludes;
    private final Map<Class<?>, Field[]> plans = new HashMap<>();
    private final IdentityHashMap<Object, Integer> seen = new IdentityHashMap<>();

    /** {@code excludes}: fields as {@code Class.field}, with the simple or the full class name. */
    StateHasher(Set<String> excludes) {
        this.excludes = Set.copyOf(excludes);
    }

    long hash(StepObserver.View view) {
        long h = 0xCBF29CE484222325L;
        for (Map.Entry<NodeId, Object> node : view.liveNodes().entrySet()) {
            seen.clear();
            h = mix(h, node.getKey().value().hashCode());
            h = mix(h, value(node.getValue()));
        }
        seen.clear();
        long now = view.virtualMillis();
        long pending = 0;
        for (ChoicePoint.Enabled event : view.pending()) {
            long e = mix(mix(mix(mix(event.kind().ordinal(), event.node().value().hashCode()),
                    event.from() == null ? 0 : event.from().value().hashCode()),
                    event.contentHash() != 0 ? event.contentHash() : event.messageType().hashCode()),
                    event.dueMillis() - now);
            pending += spread(e); // the pending events as a multiset
        }
        return mix(h, pending);
    }

    private static long mix(long h, long value) {
        return (h ^ value) * PRIME + (value >>> 29);
    }

    private static long spread(long x) {
        x ^= x >>> 33;
        x *= 0xFF51AFD7ED558CCDL;
        x ^= x >>> 33;
        x *= 0xC4CEB9FE1A85EC53L;
        return x ^ (x >>> 33);
    }

    private long value(Object object) {
        if (object == null) {
            return 0x9E3779B97F4A7C15L;
        }
        if (object instanceof String || object instanceof Number || object instanceof Boolean
                || object instanceof Character || object instanceof Enum<?> || object instanceof NodeId) {
            return spread(object instanceof Enum<?> e ? e.name().hashCode() : object.hashCode());
        }
        if (object instanceof dev.deja.node.Env || runtimeClass(object.getClass().getName())) {
            return 0x7A11L; // the node's handle on the runtime, not its state
        }
        Integer before = seen.get(object);
        if (before != null) {
            return spread(0x51ED27L + before);
        }
        seen.put(object, seen.size());
        Class<?> type = object.getClass();
        if (type.isArray()) {
            long h = type.getComponentType().getName().hashCode();
            int length = Array.getLength(object);
            if (type.getComponentType().isPrimitive()) {
                for (int i = 0; i < length; i++) {
                    h = mix(h, Array.get(object, i).hashCode());
                }
            } else {
                for (int i = 0; i < length; i++) {
                    h = mix(h, value(Array.get(object, i)));
                }
            }
            return h;
        }
        if (object instanceof Map<?, ?> map) {
            boolean ordered = map instanceof SortedMap<?, ?> || map instanceof LinkedHashMap<?, ?>;
            long h = ordered ? 1 : 0;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                long e = mix(value(entry.getKey()), value(entry.getValue()));
                h = ordered ? mix(h, e) : h + spread(e);
            }
            return h;
        }
        if (object instanceof Collection<?> collection) {
            boolean ordered = !(collection instanceof Set<?>) || collection instanceof SortedSet<?>
                    || collection instanceof LinkedHashSet<?>;
            long h = ordered ? 2 : 3;
            for (Object element : collection) {
                long e = value(element);
                h = ordered ? mix(h, e) : h + spread(e);
            }
            return h;
        }
        if (object instanceof java.util.Optional<?> optional) {
            return mix(4, value(optional.orElse(null)));
        }
        if (type.getName().startsWith("java.") || type.getName().startsWith("javax.") || type.getName().startsWith("jdk.")) {
            return spread(object.hashCode()); // a JDK value (an Instant, a UUID, a BigInteger...): its own hash
        }
        long h = type.getName().hashCode();
        for (Field field : plan(type)) {
            try {
                Class<?> fieldType = field.getType();
                if (fieldType.isPrimitive()) {
                    h = mix(h, field.get(object).hashCode());
                } else {
                    h = mix(h, value(field.get(object)));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + type.getName() + "." + field.getName() + ": " + e, e);
            }
        }
        return h;
    }

    private static boolean runtimeClass(String name) {
        return name.startsWith("dev.deja.runtime.") || name.startsWith("dev.deja.sim.") || name.startsWith("dev.deja.trace.")
                || name.startsWith("dev.deja.replay.");
    }

    private Field[] plan(Class<?> type) {
        Field[] plan = plans.get(type);
        if (plan == null) {
            List<Field> fields = new ArrayList<>();
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    int modifiers = field.getModifiers();
                    if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers) || field.isSynthetic()
                            || excludes.contains(c.getSimpleName() + "." + field.getName())
                            || excludes.contains(c.getName() + "." + field.getName())) {
                        continue;
                    }
                    try {
                        field.setAccessible(true);
                    } catch (RuntimeException e) {
                        continue; // a field of a module that is not open: left out of the hash
                    }
                    fields.add(field);
                }
            }
            plan = fields.toArray(Field[]::new);
            plans.put(type, plan);
        }
        return plan;
    }
}
