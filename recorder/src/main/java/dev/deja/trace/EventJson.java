package dev.deja.trace;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The JSON form of trace events, as {@code deja dump --json} prints them: one object per event with
 * {@code node, incarnation, seq, lamport, atMillis, type} and the fields of its type (see the README).
 */
public final class EventJson {
    private EventJson() {
    }

    /** Converts one event; message contents are decoded to JSON trees without needing their classes. */
    public static ObjectNode toJson(TraceEvent entry, MessageCodec codec) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("node", entry.node().value());
        json.put("incarnation", entry.incarnation());
        json.put("seq", entry.seq());
        json.put("lamport", entry.lamport());
        json.put("atMillis", entry.atMillis());
        json.put("type", entry.event().typeName());
        switch (entry.event()) {
            case Event.Start s -> {
                json.put("nodeClass", s.nodeClass());
                ObjectNode args = json.putObject("args");
                s.args().forEach(args::put);
                s.peers().forEach(p -> json.withArray("peers").add(p.value()));
            }
            case Event.Receive r -> {
                json.put("from", r.from().value());
                json.put("fromLamport", r.fromLamport());
                json.put("messageId", r.messageId());
                json.put("messageType", r.message().simpleType());
                json.put("messageClass", r.message().type());
                json.set("message", codec.toJsonTree(r.message()));
            }
            case Event.Send s -> {
                json.put("to", s.to().value());
                json.put("messageId", s.messageId());
                json.put("messageType", simpleName(s.messageType()));
                json.put("messageClass", s.messageType());
                json.put("digest", HexFormat.of().toHexDigits(s.digest()));
            }
            case Event.TimerFired t -> {
                json.put("timerId", t.timerId());
                json.set("tag", codec.toJsonTree(t.tag()));
            }
            case Event.ClockRead c -> json.put("millis", c.millis());
            case Event.RandomDraw r -> json.put("value", r.value());
            case Event.StorageRead s -> {
                json.put("key", s.key());
                if (s.value() == null) {
                    json.putNull("value");
                } else {
                    json.put("value", Base64.getEncoder().encodeToString(s.value()));
                }
            }
            case Event.Crash c -> json.put("crashedIncarnation", c.crashedIncarnation());
        }
        return json;
    }

    /** One human-readable line for an event, as {@code deja dump} prints it. */
    public static String toText(TraceEvent entry, MessageCodec codec) {
        String head = String.format("%-6s inc %d  seq %-6d lamport %-7d %-12s", entry.node(), entry.incarnation(),
                entry.seq(), entry.lamport(), entry.event().typeName());
        String detail = switch (entry.event()) {
            case Event.Start s -> s.nodeClass() + " args " + s.args() + " peers " + s.peers();
            case Event.Receive r -> "from " + r.from() + " (lamport " + r.fromLamport() + ", msg " + messageId(r.messageId())
                    + ") " + r.message().simpleType() + " " + codec.toJson(r.message());
            case Event.Send s -> "to " + s.to() + " (msg " + messageId(s.messageId()) + ") " + simpleName(s.messageType())
                    + " digest " + HexFormat.of().toHexDigits(s.digest());
            case Event.TimerFired t -> "timer " + t.timerId() + " tag " + codec.toJson(t.tag());
            case Event.ClockRead c -> c.millis() + " ms";
            case Event.RandomDraw r -> Long.toString(r.value());
            case Event.StorageRead s -> s.key() + " = " + (s.value() == null ? "(absent)" : s.value().length + " bytes");
            case Event.Crash c -> "incarnation " + c.crashedIncarnation() + " ended without a clean shutdown";
        };
        return head + " " + detail;
    }

    /** A message id as {@code incarnation:counter}. */
    public static String messageId(long messageId) {
        return (messageId >>> 40) + ":" + (messageId & ((1L << 40) - 1));
    }

    private static String simpleName(String className) {
        return className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
    }
}
