package dev.deja.view.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.EventKind;
import dev.deja.trace.MessageCodec;
import dev.deja.trace.Payload;
import dev.deja.trace.TraceEvent;
import dev.deja.view.Cone;
import dev.deja.view.EventFilter;
import dev.deja.view.Segment;
import dev.deja.view.TraceModel;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** A {@link TraceModel} in primitive columns, one array per field, indexed by position. Immutable. */
final class ColumnarTraceModel implements TraceModel {
    /** The columns, as the builder fills them. */
    static final class Columns {
        String name;
        int size;
        List<NodeId> lanes;
        List<NodeId> peers;
        byte[] type;
        int[] lane;
        int[] ordinal;
        int[] incarnation;
        long[] lamport;
        long[] atMillis;
        /** Message class (send, receive), tag class (timer) or storage key (storage read) index; -1 otherwise. */
        int[] names;
        int[] peer;
        long[] messageId;
        /** fromLamport, digest, timer id, clock millis, random value or crashed incarnation, by type. */
        long[] value;
        int[] payloadStart;
        int[] counterpart;
        /** For a send its first arc, for a receive its arc; -1 otherwise. */
        int[] arcOf;
        int[] arcSend;
        int[] arcReceive;
        byte[] payloads;
        Map<Integer, Event.Start> starts;
        List<String> messageClasses;
        List<String> tagClasses;
        List<String> storageKeys;
        int[][] lanePositions;
        List<List<Segment>> segments;
    }

    private final Columns c;
    private final Map<NodeId, Integer> laneIndex = new HashMap<>();

    ColumnarTraceModel(Columns columns) {
        this.c = columns;
        for (int i = 0; i < columns.lanes.size(); i++) {
            laneIndex.put(columns.lanes.get(i), i);
        }
    }

    static String simpleName(String className) {
        return className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
    }

    @Override
    public String name() {
        return c.name;
    }

    @Override
    public int size() {
        return c.size;
    }

    @Override
    public List<NodeId> nodes() {
        return c.lanes;
    }

    @Override
    public int lane(NodeId node) {
        Integer lane = laneIndex.get(node);
        return lane == null ? -1 : lane;
    }

    @Override
    public int laneOf(int position) {
        return c.lane[position];
    }

    @Override
    public int ordinal(int position) {
        return c.ordinal[position];
    }

    @Override
    public int positionOf(int lane, int ordinal) {
        return c.lanePositions[lane][ordinal];
    }

    @Override
    public int laneSize(int lane) {
        return c.lanePositions[lane].length;
    }

    @Override
    public int incarnation(int position) {
        return c.incarnation[position];
    }

    @Override
    public long seq(int position) {
        return c.ordinal[position];
    }

    @Override
    public long lamport(int position) {
        return c.lamport[position];
    }

    @Override
    public long atMillis(int position) {
        return c.atMillis[position];
    }

    @Override
    public EventKind type(int position) {
        return EventKind.ofCode(c.type[position]);
    }

    private boolean isMessage(int position) {
        return c.type[position] == EventKind.SEND.code() || c.type[position] == EventKind.RECEIVE.code();
    }

    @Override
    public int messageType(int position) {
        return isMessage(position) ? c.names[position] : -1;
    }

    @Override
    public List<String> messageTypes() {
        return c.messageClasses;
    }

    @Override
    public Optional<NodeId> peer(int position) {
        return c.peer[position] < 0 ? Optional.empty() : Optional.of(c.peers.get(c.peer[position]));
    }

    @Override
    public int peerLane(int position) {
        int peer = c.peer[position];
        return peer >= 0 && peer < c.lanes.size() ? peer : -1;
    }

    @Override
    public int counterpart(int position) {
        return c.counterpart[position];
    }

    @Override
    public int arcCount() {
        return c.arcSend.length;
    }

    @Override
    public int arcSend(int arc) {
        return c.arcSend[arc];
    }

    @Override
    public int arcReceive(int arc) {
        return c.arcReceive[arc];
    }

    /** For a send its first arc (its other arcs follow), for a receive its arc; -1 otherwise. */
    int arcOf(int position) {
        return c.arcOf[position];
    }

    @Override
    public List<Segment> segments(int lane) {
        return c.segments.get(lane);
    }

    private Payload payload(int position, String type) {
        int start = c.payloadStart[position];
        if (start < 0) {
            return null;
        }
        byte[] p = c.payloads;
        int length = ((p[start] & 0xFF) << 24) | ((p[start + 1] & 0xFF) << 16) | ((p[start + 2] & 0xFF) << 8) | (p[start + 3] & 0xFF);
        return new Payload(type, Arrays.copyOfRange(p, start + 4, start + 4 + length));
    }

    @Override
    public TraceEvent entry(int position) {
        NodeId node = c.lanes.get(c.lane[position]);
        Event event = switch (type(position)) {
            case START -> c.starts.get(position);
            case RECEIVE -> new Event.Receive(c.peers.get(c.peer[position]), c.value[position], c.messageId[position],
                    payload(position, c.messageClasses.get(c.names[position])));
            case SEND -> new Event.Send(c.peers.get(c.peer[position]), c.messageId[position],
                    c.messageClasses.get(c.names[position]), c.value[position]);
            case TIMER -> new Event.TimerFired(c.value[position], payload(position, c.tagClasses.get(c.names[position])));
            case CLOCK -> new Event.ClockRead(c.value[position]);
            case RANDOM -> new Event.RandomDraw(c.value[position]);
            case STORAGE_READ -> {
                Payload stored = payload(position, "bytes");
                yield new Event.StorageRead(c.storageKeys.get(c.names[position]), stored == null ? null : stored.bytes());
            }
            case CRASH -> new Event.Crash((int) c.value[position]);
        };
        return new TraceEvent(node, c.incarnation[position], c.ordinal[position], c.lamport[position],
                c.atMillis[position], event);
    }

    @Override
    public String content(int position) {
        return switch (type(position)) {
            case RECEIVE -> json(payload(position, c.messageClasses.get(c.names[position])));
            case TIMER -> json(payload(position, c.tagClasses.get(c.names[position])));
            case SEND -> c.counterpart[position] >= 0 ? content(c.counterpart[position]) : "";
            case STORAGE_READ -> c.storageKeys.get(c.names[position]);
            case START -> {
                Event.Start start = c.starts.get(position);
                ObjectNode json = JsonNodeFactory.instance.objectNode();
                json.put("nodeClass", start.nodeClass());
                ObjectNode args = json.putObject("args");
                start.args().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> args.put(e.getKey(), e.getValue()));
                start.peers().forEach(p -> json.withArray("peers").add(p.value()));
                yield json.toString();
            }
            default -> "";
        };
    }

    private static String json(Payload payload) {
        return payload == null ? "" : MessageCodec.defaultCodec().toJson(payload);
    }

    @Override
    public Cone cone(int origin) {
        if (origin < 0 || origin >= c.size) {
            throw new IndexOutOfBoundsException("position " + origin + " is outside the trace (0.." + (c.size - 1) + ")");
        }
        int lanes = c.lanes.size();
        int[] past = new int[lanes];
        int[] future = new int[lanes];
        Arrays.fill(past, -1);
        Arrays.fill(future, Integer.MAX_VALUE);
        int originLane = c.lane[origin];
        past[originLane] = c.ordinal[origin] - 1;
        future[originLane] = c.ordinal[origin] + 1;
        // Backwards through the merged order (a linearization, so a send precedes its receive): every receive
        // in the past pulls its send's lane prefix into the past.
        for (int position = origin; position >= 0; position--) {
            int lane = c.lane[position];
            if ((position == origin || c.ordinal[position] <= past[lane])
                    && c.type[position] == EventKind.RECEIVE.code() && c.counterpart[position] >= 0) {
                int send = c.counterpart[position];
                past[c.lane[send]] = Math.max(past[c.lane[send]], c.ordinal[send]);
            }
        }
        // Forwards: every send in the future (or the origin) pushes its receives' lane suffixes into the future.
        for (int position = origin; position < c.size; position++) {
            int lane = c.lane[position];
            if ((position == origin || c.ordinal[position] >= future[lane]) && c.type[position] == EventKind.SEND.code()) {
                for (int arc = c.arcOf[position]; arc >= 0 && arc < c.arcSend.length && c.arcSend[arc] == position; arc++) {
                    int receive = c.arcReceive[arc];
                    if (receive >= 0) {
                        future[c.lane[receive]] = Math.min(future[c.lane[receive]], c.ordinal[receive]);
                    }
                }
            }
        }
        return new LaneCone(origin, past, future);
    }

    /** A cone as a prefix and a suffix per lane. */
    private final class LaneCone implements Cone {
        private final int origin;
        private final int[] past;
        private final int[] future;

        LaneCone(int origin, int[] past, int[] future) {
            this.origin = origin;
            this.past = past;
            this.future = future;
        }

        @Override
        public int origin() {
            return origin;
        }

        @Override
        public boolean inPast(int position) {
            return c.ordinal[position] <= past[c.lane[position]];
        }

        @Override
        public boolean inFuture(int position) {
            return c.ordinal[position] >= future[c.lane[position]];
        }

        @Override
        public int lastPastOrdinal(int lane) {
            return past[lane];
        }

        @Override
        public int firstFutureOrdinal(int lane) {
            return future[lane];
        }
    }

    @Override
    public BitSet matching(EventFilter filter) {
        BitSet result = new BitSet(c.size);
        if (filter.isAll()) {
            result.set(0, c.size);
            return result;
        }
        boolean[] laneShown = new boolean[c.lanes.size()];
        if (filter.nodes().isEmpty()) {
            Arrays.fill(laneShown, true);
        } else {
            for (NodeId node : filter.nodes()) {
                int lane = lane(node);
                if (lane >= 0) {
                    laneShown[lane] = true;
                }
            }
        }
        boolean[] typeShown = null;
        if (!filter.messageTypes().isEmpty()) {
            typeShown = new boolean[c.messageClasses.size()];
            for (int i = 0; i < typeShown.length; i++) {
                String type = c.messageClasses.get(i);
                typeShown[i] = filter.messageTypes().contains(type) || filter.messageTypes().contains(simpleName(type));
            }
        }
        String text = filter.textLowerCase();
        for (int position = 0; position < c.size; position++) {
            if (!laneShown[c.lane[position]]) {
                continue;
            }
            if (!filter.positions().isEmpty() && !filter.positions().contains(position)) {
                continue;
            }
            byte kind = c.type[position];
            if (filter.timers() == EventFilter.Timers.HIDE && kind == EventKind.TIMER.code()) {
                continue;
            }
            if (typeShown != null && !(isMessage(position) && typeShown[c.names[position]])) {
                continue;
            }
            if (!text.isEmpty() && !content(position).toLowerCase(Locale.ROOT).contains(text)) {
                continue;
            }
            result.set(position);
        }
        return result;
    }
}
