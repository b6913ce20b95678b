package dev.deja.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Values from a script (witnesses, aux values, rows) written the way Python prints them, as the script's author wrote them. */
public final class PythonText {
    private PythonText() {
    }

    /** {@code value} as Python's {@code repr} shows it: lists as tuples, {@code None}, {@code True}, quoted strings. */
    public static String of(Object value) {
        return switch (value) {
            case null -> "None";
            case Boolean b -> b ? "True" : "False";
            case String s -> "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
            case List<?> list -> {
                List<String> items = list.stream().map(PythonText::of).toList();
                yield "(" + String.join(", ", items) + (items.size() == 1 ? ",)" : ")");
            }
            case Map<?, ?> map -> {
                List<String> items = new ArrayList<>();
                map.forEach((k, v) -> items.add(of(k) + ": " + of(v)));
                yield "{" + String.join(", ", items) + "}";
            }
            default -> value.toString();
        };
    }
}
