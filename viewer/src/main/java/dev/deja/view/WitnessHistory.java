package dev.deja.view;

import dev.deja.check.PythonText;
import dev.deja.check.CheckedEvent;
import dev.deja.check.RowChange;
import dev.deja.check.StateHistory;
import dev.deja.check.StateStep;
import dev.deja.check.Violation;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a finding happened: the events that changed what its predicate read about its witness, up to the finding,
 * followed back through happens-before to the events that sent the messages carrying the change
 * ({@code deja why}).
 *
 * <p>What counts as a change depends on the witness. For a row ({@code Table[node:oid]}, as {@code forall} and
 * {@code exists} give), every change of that row. For any other value (a transaction id, a tuple), every change
 * of a row of a table the predicate read in which the witness (a tuple's strings, or the value itself) appeared in
 * or disappeared from a column. For a predicate that returned a truth value (no witness), every change of a table it
 * read. If the predicate read the built-in {@code nodes}, also the starts and restarts of the nodes whose rows took
 * part, and the last event of such a node that crashed for good (after which it is not alive). The finding's own
 * event is always among the causes.
 *
 * <p>Reads the stored state history of the latest check (which must be complete) and the trace's merged order.
 */
public final class WitnessHistory {
    private static final Pattern ROW = Pattern.compile("^(\\w+)\\[(.+):(\\d+)]$");

    private WitnessHistory() {
    }

    /**
     * One event of a finding's history.
     *
     * @param event  the event (a handler call) at its position in the merged order
     * @param reason what it did to the witness, in words
     */
    public record Cause(CheckedEvent event, String reason) {
        public Cause {
            Objects.requireNonNull(event, "event");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The causes of {@code finding}, in position order, ending with the finding's own event.
     *
     * @param model   the trace, for the messages' senders
     * @param history the latest check's complete stored history of the trace
     * @param deaths  the nodes that crashed for good (see {@link dev.deja.check.NodeDeaths})
     */
    public static List<Cause> of(TraceModel model, StateHistory history, Violation finding, Map<String, long[]> deaths) {
        long until = finding.event().position();
        Set<String> reads = new HashSet<>(finding.reads());
        boolean readsNodes = reads.isEmpty() || reads.contains("nodes");
        Object witness = finding.witness();
        Matcher row = witness instanceof String text ? ROW.matcher(text) : null;
        String witnessRow = row != null && row.matches() ? row.group(1) + "[" + row.group(2) + ":" + row.group(3) + "]" : null;
        List<Object> atoms = witness == null || witnessRow != null ? List.of() : atoms(witness);

        Map<String, Map<String, Object>> rows = new HashMap<>();
        TreeMap<Long, Cause> causes = new TreeMap<>();
        Set<NodeId> involved = new HashSet<>();
        List<CheckedEvent> nodeEvents = new ArrayList<>();
        Set<Long> changed = new HashSet<>();   // the events that changed what the predicate read
        history.replayHistory(0, step -> {
            CheckedEvent event = step.event();
            if (event.position() > until) {
                return;
            }
            // A restart (the crash entry that starts the next incarnation) or a death; a node's first start is
            // no news.
            if (event.type().equals("crash") || isDeath(event, deaths)) {
                nodeEvents.add(event);
            }
            List<String> reasons = new ArrayList<>();
            for (RowChange change : step.changes()) {
                String key = change.table() + "[" + change.node().value() + ":" + change.oid() + "]";
                Map<String, Object> before = rows.get(key);
                Map<String, Object> after = change.kind() == RowChange.Kind.DELETE ? null : change.values();
                if (after == null) {
                    rows.remove(key);
                } else {
                    rows.put(key, after);
                }
                if (!reads.isEmpty() && !reads.contains(change.table())) {
                    continue;
                }
                String reason;
                if (witnessRow != null) {
                    reason = key.equals(witnessRow) ? describeChange(key, before, after) : null;
                } else if (witness == null) {
                    reason = describeChange(key, before, after);
                } else {
                    reason = describePresence(key, before, after, atoms);
                }
                if (reason != null) {
                    reasons.add(reason);
                    involved.add(change.node());
                }
            }
            if (!reasons.isEmpty()) {
                causes.put(event.position(), new Cause(event, String.join("; ", reasons)));
                changed.add(event.position());
            }
        });
        if (readsNodes) {
            for (CheckedEvent event : nodeEvents) {
                if (witness != null && !involved.contains(event.node())) {
                    continue;
                }
                String reason = isDeath(event, deaths)
                        ? event.node() + " crashed after this event and never restarted (nodes: alive False)"
                        : event.node() + " restarted after a crash (incarnation " + event.incarnation() + ")";
                causes.merge(event.position(), new Cause(event, reason),
                        (a, b) -> new Cause(a.event(), a.reason() + "; " + b.reason()));
            }
        }
        causes.merge(until, new Cause(finding.event(), "the predicate found " + describeWitness(finding) + " here"),
                (a, b) -> new Cause(a.event(), a.reason() + "; " + b.reason()));
        // Back through happens-before: the event that sent each message whose receipt made a change.
        Map<Long, Cause> senders = new LinkedHashMap<>();
        for (Cause cause : causes.values()) {
            CheckedEvent event = cause.event();
            if (!changed.contains(event.position()) || !event.type().equals("receive") || event.position() >= model.size()) {
                continue;
            }
            int send = model.counterpart((int) event.position());
            if (send < 0) {
                continue;
            }
            int handler = send;
            while (handler >= 0 && !model.type(handler).isDispatch()) {
                handler = model.previousOnLane(handler);
            }
            if (handler < 0 || causes.containsKey((long) handler) || senders.containsKey((long) handler)) {
                continue;
            }
            senders.put((long) handler, new Cause(checkedEvent(model, handler), "sent the "
                    + event.messageType().orElse("message") + " that " + event.node() + " received at " + event.position()));
        }
        causes.putAll(senders);
        return List.copyOf(causes.values());
    }

    /** The witness as the report shows it, or "the predicate false" when there is none. */
    public static String describeWitness(Violation finding) {
        return finding.witness() == null ? "it false" : "witness " + PythonText.of(finding.witness());
    }

    private static boolean isDeath(CheckedEvent event, Map<String, long[]> deaths) {
        long[] last = deaths.get(event.node().value());
        return last != null && last[0] == event.incarnation() && last[1] == event.seq();
    }

    private static CheckedEvent checkedEvent(TraceModel model, int position) {
        var entry = model.entry(position);
        java.util.Optional<String> messageType = java.util.Optional.empty();
        java.util.Optional<NodeId> from = java.util.Optional.empty();
        if (entry.event() instanceof dev.deja.trace.Event.Receive receive) {
            messageType = java.util.Optional.of(receive.message().simpleType());
            from = java.util.Optional.of(receive.from());
        }
        return new CheckedEvent(position, entry.node(), entry.incarnation(), entry.seq(), entry.lamport(),
                entry.atMillis(), entry.event().typeName(), messageType, from);
    }

    /** The values a witness is recognized by in rows: a container's strings (or all its values if none is one). */
    private static List<Object> atoms(Object witness) {
        List<Object> leaves = new ArrayList<>();
        leaves(witness, leaves);
        List<Object> strings = leaves.stream().filter(v -> v instanceof String).toList();
        return strings.isEmpty() ? leaves : strings;
    }

    private static void leaves(Object value, List<Object> out) {
        if (value instanceof List<?> list) {
            list.forEach(v -> leaves(v, out));
        } else if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                leaves(k, out);
                leaves(v, out);
            });
        } else if (value != null) {
            out.add(value);
        }
    }

    private static boolean contains(Object value, List<Object> atoms) {
        if (value instanceof List<?> list) {
            return list.stream().anyMatch(v -> contains(v, atoms));
        }
        if (value instanceof Map<?, ?> map) {
            return map.entrySet().stream().anyMatch(e -> contains(e.getKey(), atoms) || contains(e.getValue(), atoms));
        }
        return value != null && atoms.stream().anyMatch(atom -> same(atom, value));
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return x.doubleValue() == y.doubleValue();
        }
        return a.equals(b);
    }

    /** Which columns of the row gained or lost the witness, or null if none did. */
    private static String describePresence(String key, Map<String, Object> before, Map<String, Object> after,
                                           List<Object> atoms) {
        List<String> parts = new ArrayList<>();
        Set<String> columns = new java.util.LinkedHashSet<>();
        if (before != null) {
            columns.addAll(before.keySet());
        }
        if (after != null) {
            columns.addAll(after.keySet());
        }
        for (String column : columns) {
            boolean was = before != null && contains(before.get(column), atoms);
            boolean is = after != null && contains(after.get(column), atoms);
            if (was != is) {
                parts.add(column + (is ? " gains " : " loses ") + PythonText.of(atoms.size() == 1 ? atoms.getFirst() : atoms));
            }
        }
        if (parts.isEmpty()) {
            return null;
        }
        return key + (after == null ? " (deleted)" : before == null ? " (new)" : "") + ": " + String.join(", ", parts);
    }

    /** The columns of a row that changed, with their values before and after. */
    private static String describeChange(String key, Map<String, Object> before, Map<String, Object> after) {
        if (after == null) {
            return key + " deleted";
        }
        if (before == null) {
            return key + " new: " + values(after);
        }
        Map<String, Object> changed = new LinkedHashMap<>();
        after.forEach((column, value) -> {
            if (!Objects.equals(before.get(column), value)) {
                changed.put(column, value);
            }
        });
        if (changed.isEmpty()) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        changed.forEach((column, value) -> parts.add(column + ": " + PythonText.of(before.get(column)) + " -> " + PythonText.of(value)));
        return key + " " + String.join(", ", parts);
    }

    private static String values(Map<String, Object> row) {
        List<String> parts = new ArrayList<>();
        row.forEach((column, value) -> parts.add(column + "=" + PythonText.of(value)));
        return String.join(" ", parts);
    }
}
