package dev.deja.check.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads stored row values back into exactly the normalized forms {@link dev.deja.check.RowChange} documents:
 * integral numbers as {@link Long}, others as {@link Double}, lists and insertion-ordered maps unmodifiable.
 */
final class JsonValues {
    private JsonValues() {
    }

    /** A stored value, parsed already. */
    static Object convert(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isIntegralNumber()) {
            return node.longValue();
        }
        if (node.isNumber()) {
            return node.doubleValue();
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>(node.size());
            node.forEach(element -> list.add(convert(element)));
            return Collections.unmodifiableList(list);
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            map.put(field.getKey(), convert(field.getValue()));
        }
        return Collections.unmodifiableMap(map);
    }
}
