package dev.deja.trace;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import dev.deja.node.NodeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Serializes messages and timer tags: CBOR on the wire and in the trace, JSON for humans.
 *
 * <p>A value is identified by its class name, resolved with the class loader given at construction, so a
 * replay of a user's system resolves the user's classes. Thread-safe.
 */
public final class MessageCodec {
    private static final XXHash64 HASH = XXHashFactory.fastestJavaInstance().hash64();
    private static final long DIGEST_SEED = 0x44454A41L; // "DEJA"

    private final ObjectMapper cbor;
    private final ObjectMapper json;
    private final ClassLoader classLoader;
    // Per message class: resolving the name and Jackson's root deserializer once, not at every message.
    private final ConcurrentHashMap<String, ObjectReader> readers = new ConcurrentHashMap<>();
    // Per value class: how to tell whether an instance may be shared (see shareable), or null when none may.
    // (A ClassValue: this lookup runs at every send of a search, and a ConcurrentHashMap's showed in its profile.)
    private final ClassValue<PlanCell> sharePlans = new ClassValue<>() {
        @Override
        protected PlanCell computeValue(Class<?> type) {
            return new PlanCell();
        }
    };
    // Softly held: a codec holds its loader, so a strongly held value would keep its weak key alive for ever (every
    // user class path a long-lived process, such as the warm engine, explored with); under memory pressure the
    // codecs of loaders no one uses any more go, and their loaders with them.
    private static final Map<ClassLoader, java.lang.ref.SoftReference<MessageCodec>> SHARED = new WeakHashMap<>();

    public MessageCodec(ClassLoader classLoader) {
        this.classLoader = classLoader;
        this.cbor = CBORMapper.builder(new CBORFactory())
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        this.json = JsonMapper.builder()
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
    }

    /** A codec resolving classes with this library's own class loader. */
    public static MessageCodec defaultCodec() {
        return Holder.DEFAULT;
    }

    /**
     * One codec per class loader for this process, so that runs after the first (a search runs thousands) find
     * Jackson's serializers and deserializers already built. The codec holds its loader; the process keeps it
     * (and the loader) until memory runs short and no one uses it.
     */
    public static MessageCodec shared(ClassLoader classLoader) {
        synchronized (SHARED) {
            java.lang.ref.SoftReference<MessageCodec> held = SHARED.get(classLoader);
            MessageCodec codec = held == null ? null : held.get();
            if (codec == null) {
                codec = new MessageCodec(classLoader);
                SHARED.put(classLoader, new java.lang.ref.SoftReference<>(codec));
            }
            return codec;
        }
    }

    private static final class Holder {
        static final MessageCodec DEFAULT = new MessageCodec(MessageCodec.class.getClassLoader());
    }

    /** Encodes a message or tag; fails with a message naming the class if Jackson cannot serialize it. */
    public Payload encode(Object value) {
        if (value == null) {
            throw new IllegalArgumentException("a message or timer tag must not be null");
        }
        try {
            return new Payload(value.getClass().getName(), cbor.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialize " + value.getClass().getName()
                    + " with Jackson (messages and tags must be records or simple values): " + e.getMessage(), e);
        }
    }

    /** Decodes a payload back into an instance of its class. */
    public Object decode(Payload payload) {
        ObjectReader reader = readers.get(payload.type());
        if (reader == null) {
            Class<?> type;
            try {
                type = Class.forName(payload.type(), false, classLoader);
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("message class " + payload.type()
                        + " is not on the classpath (replaying a user's system needs its classes)", e);
            }
            reader = cbor.readerFor(type);
            readers.putIfAbsent(payload.type(), reader);
        }
        try {
            return reader.readValue(payload.bytes());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot decode a " + payload.type() + ": " + e.getMessage(), e);
        }
    }

    /** The payload as a JSON tree, readable without the payload's classes. */
    public JsonNode toJsonTree(Payload payload) {
        try {
            return cbor.readTree(payload.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read a " + payload.type() + " payload as CBOR", e);
        }
    }

    /** The payload rendered as compact JSON. */
    public String toJson(Payload payload) {
        try {
            return json.writeValueAsString(toJsonTree(payload));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The 64-bit content digest recorded for every send and compared on replay (XXH64 of the CBOR bytes). */
    public static long digest(Payload payload) {
        byte[] bytes = payload.bytes();
        return HASH.hash(bytes, 0, bytes.length, DIGEST_SEED ^ payload.type().hashCode());
    }

    /**
     * Whether {@code value} may be handed to another node of the same process as it is, instead of encoded and
     * decoded into a copy: no node can change it, and the copy the receiver would decode is indistinguishable from
     * it. True for primitives and their boxes, strings, {@link NodeId}s, enums and records built only of those,
     * recursively, with no Jackson annotation, whose first instance decodes back
     * with equal components, and holding no string with an unpaired surrogate (CBOR cannot carry one). Collections
     * and arrays are never shared: a decoded one is a fresh mutable copy. The simulator uses this when it builds
     * no trace entries; a run that hands such values over by reference is the same run, answer for answer, as one
     * that encodes them.
     */
    public boolean shareable(Object value) {
        if (value == null) {
            return false;
        }
        PlanCell cell = sharePlans.get(value.getClass());
        SharePlan plan = cell.plan;
        if (plan == null) {
            plan = planFor(value); // racing threads compute the same plan
            if (plan == null) {
                return false; // this instance cannot tell: decided on the next one
            }
            cell.plan = plan;
        }
        return plan != SharePlan.NEVER && plan.stringsAreWellFormed(value);
    }

    /** A class's plan, made from its first instance (the round trip needs one). */
    private static final class PlanCell {
        volatile SharePlan plan;
    }

    /** The plan of {@code first}'s class, or null when {@code first} cannot be encoded to try the round trip. */
    private SharePlan planFor(Object first) {
        SharePlan plan = SharePlan.of(first.getClass(), new HashSet<>());
        if (plan == SharePlan.NEVER) {
            return plan;
        }
        if (!plan.stringsAreWellFormed(first)) {
            return null;
        }
        try {
            return sameComponents(decode(encode(first)), first) ? plan : SharePlan.NEVER;
        } catch (RuntimeException | ReflectiveOperationException e) {
            return SharePlan.NEVER;
        }
    }

    /** Equal component by component, whatever the records' own {@code equals} says. */
    private static boolean sameComponents(Object a, Object b) throws ReflectiveOperationException {
        if (a == null || b == null || !a.getClass().isRecord()) {
            return java.util.Objects.equals(a, b);
        }
        if (a.getClass() != b.getClass()) {
            return false;
        }
        for (RecordComponent component : a.getClass().getRecordComponents()) {
            Method accessor = component.getAccessor();
            accessor.setAccessible(true);
            if (!sameComponents(accessor.invoke(a), accessor.invoke(b))) {
                return false;
            }
        }
        return true;
    }

    /** How to check one shareable class's instances: the accessors of its string and record components. */
    private record SharePlan(Method[] strings, Method[] records, SharePlan[] recordPlans) {
        static final SharePlan NEVER = new SharePlan(new Method[0], new Method[0], new SharePlan[0]);
        static final SharePlan ALWAYS = new SharePlan(new Method[0], new Method[0], new SharePlan[0]);
        private static final Set<Class<?>> LEAVES = Set.of(String.class, Integer.class, Long.class, Short.class,
                Byte.class, Character.class, Boolean.class, Double.class, Float.class, NodeId.class);

        static SharePlan of(Class<?> type, Set<Class<?>> visiting) {
            if (type.isPrimitive() || LEAVES.contains(type)) {
                return ALWAYS;
            }
            if (type.isEnum()) {
                return jacksonAnnotated(type) ? NEVER : ALWAYS;
            }
            if (!type.isRecord() || jacksonAnnotated(type) || hasGetterBesidesComponents(type)) {
                return NEVER;
            }
            if (!visiting.add(type)) {
                return NEVER; // a record that holds itself: rare enough to leave to the codec
            }
            List<Method> strings = new ArrayList<>();
            List<Method> records = new ArrayList<>();
            List<SharePlan> recordPlans = new ArrayList<>();
            for (RecordComponent component : type.getRecordComponents()) {
                Class<?> componentType = component.getType();
                SharePlan inner = of(componentType, visiting);
                if (inner == NEVER) {
                    return NEVER;
                }
                Method accessor = component.getAccessor();
                try {
                    accessor.setAccessible(true);
                } catch (RuntimeException e) {
                    return NEVER;
                }
                if (componentType == String.class) {
                    strings.add(accessor);
                } else if (inner != ALWAYS) {
                    records.add(accessor);
                    recordPlans.add(inner);
                }
            }
            visiting.remove(type);
            if (strings.isEmpty() && records.isEmpty()) {
                return ALWAYS;
            }
            return new SharePlan(strings.toArray(Method[]::new), records.toArray(Method[]::new),
                    recordPlans.toArray(SharePlan[]::new));
        }

        boolean stringsAreWellFormed(Object value) {
            if (value instanceof String text) {
                return wellFormed(text);
            }
            try {
                for (Method accessor : strings) {
                    Object text = accessor.invoke(value);
                    if (text != null && !wellFormed((String) text)) {
                        return false;
                    }
                }
                for (int i = 0; i < records.length; i++) {
                    Object inner = records[i].invoke(value);
                    if (inner != null && !recordPlans[i].stringsAreWellFormed(inner)) {
                        return false;
                    }
                }
                return true;
            } catch (ReflectiveOperationException e) {
                return false;
            }
        }

        private static boolean wellFormed(String text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                        return false;
                    }
                    i++;
                } else if (Character.isLowSurrogate(c)) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Whether Jackson would also write a property no component holds: a public {@code getX()} or {@code isX()},
         * the record's own or an interface's, which might compute (or throw) differently for another instance.
         */
        private static boolean hasGetterBesidesComponents(Class<?> type) {
            Set<String> accessors = new HashSet<>();
            for (RecordComponent component : type.getRecordComponents()) {
                accessors.add(component.getName());
            }
            for (Method method : type.getMethods()) {
                String name = method.getName();
                if (method.getDeclaringClass() == Object.class || method.getDeclaringClass() == Record.class
                        || java.lang.reflect.Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0
                        || accessors.contains(name)) {
                    continue;
                }
                if ((name.startsWith("get") && name.length() > 3) || (name.startsWith("is") && name.length() > 2)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean jacksonAnnotated(Class<?> type) {
            if (jackson(type)) {
                return true;
            }
            for (Field field : type.getDeclaredFields()) {
                if (jackson(field)) {
                    return true;
                }
            }
            for (Method method : type.getDeclaredMethods()) {
                if (jackson(method)) {
                    return true;
                }
            }
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                if (jackson(constructor)) {
                    return true;
                }
                for (Annotation[] parameter : constructor.getParameterAnnotations()) {
                    for (Annotation annotation : parameter) {
                        if (isJackson(annotation)) {
                            return true;
                        }
                    }
                }
            }
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) {
                    if (jackson(component)) {
                        return true;
                    }
                }
            }
            return false;
        }

        private static boolean jackson(AnnotatedElement element) {
            for (Annotation annotation : element.getDeclaredAnnotations()) {
                if (isJackson(annotation)) {
                    return true;
                }
            }
            return false;
        }

        /** A Jackson annotation, or one of the user's that bundles Jackson annotations. */
        private static boolean isJackson(Annotation annotation) {
            Class<? extends Annotation> type = annotation.annotationType();
            if (type.getName().startsWith("com.fasterxml.jackson.")) {
                return true;
            }
            for (Annotation meta : type.getDeclaredAnnotations()) {
                if (meta.annotationType().getName().startsWith("com.fasterxml.jackson.")) {
                    return true;
                }
            }
            return false;
        }
    }
}
