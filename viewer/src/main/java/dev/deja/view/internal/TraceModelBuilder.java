package dev.deja.view.internal;

import dev.deja.node.NodeId;
import dev.deja.trace.Event;
import dev.deja.trace.EventKind;
import dev.deja.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Collects entries, in merged order, into the columns of a {@link ColumnarTraceModel}. The loader feeds it
 * from the replayer's merge; tests feed it crafted entries. Not thread-safe.
 */
final class TraceModelBuilder {
    /** The most entries a model holds: positions are ints. */
    static final int MAX_ENTRIES = Integer.MAX_VALUE - 16;

    private final String traceName;
    private final List<NodeId> lanes;
    private final Map<NodeId, Integer> laneIndex = new HashMap<>();
    private final List<NodeId> peers;
    private final Map<NodeId, Integer> peerIndex = new HashMap<>();
    private final Map<String, Integer> messageClasses = new LinkedHashMap<>();
    private final Map<String, Integer> tagClasses = new LinkedHashMap<>();
    private final Map<String, Integer> storageKeys = new LinkedHashMap<>();
    private final Map<Integer, Event.Start> starts = new HashMap<>();
    private final IntList[] lanePositions;
    private final MessageIndex sends = new MessageIndex();
    private final IntList arcSends = new IntList(1024);
    private final IntList arcReceives = new IntList(1024);
    private final Set<Integer> crashedAtEnd = new HashSet<>();

    private int size;
    private byte[] type = new byte[1024];
    private int[] lane = new int[1024];
    private int[] ordinal = new int[1024];
    private int[] incarnation = new int[1024];
    private long[] lamport = new long[1024];
    private long[] atMillis = new long[1024];
    private int[] names = new int[1024];
    private int[] peer = new int[1024];
    private long[] messageId = new long[1024];
    private long[] value = new long[1024];
    private int[] payloadStart = new int[1024];
    private int[] counterpart = new int[1024];
    private byte[] payloads = new byte[1 << 16];
    private int payloadSize;

    /**
     * @param name  names the trace in messages
     * @param nodes the recorded nodes, in any order: lanes are sorted naturally ({@code n2} before {@code n10})
     */
    TraceModelBuilder(String name, List<NodeId> nodes) {
        this.traceName = name;
        List<NodeId> lanes = new ArrayList<>(nodes);
        lanes.sort(Comparator.comparing(NodeId::value, NaturalOrder.INSTANCE));
        this.lanes = List.copyOf(lanes);
        this.peers = new ArrayList<>(lanes);
        this.lanePositions = new IntList[lanes.size()];
        for (int i = 0; i < lanes.size(); i++) {
            if (laneIndex.put(lanes.get(i), i) != null) {
                throw new IllegalArgumentException("node " + lanes.get(i) + " given twice");
            }
            peerIndex.put(lanes.get(i), i);
            lanePositions[i] = new IntList(1024);
        }
    }

    /** Notes that {@code node}'s last incarnation did not end cleanly. */
    void lastIncarnationCrashed(NodeId node) {
        crashedAtEnd.add(laneIndex.get(node));
    }

    /** Adds the next entry of the merged order. */
    void add(TraceEvent entry) {
        Integer laneOfEntry = laneIndex.get(entry.node());
        if (laneOfEntry == null) {
            throw new IllegalArgumentException(traceName + ": an entry of node " + entry.node() + ", which has no lane: " + entry);
        }
        if (size == MAX_ENTRIES) {
            throw new IllegalArgumentException(traceName + ": the trace has more than " + MAX_ENTRIES
                    + " entries, more than the viewer can hold");
        }
        IntList onLane = lanePositions[laneOfEntry];
        if (entry.seq() != onLane.size()) {
            throw new IllegalArgumentException(traceName + ": node " + entry.node() + ": expected seq " + onLane.size()
                    + " next, got " + entry);
        }
        ensureCapacity();
        int position = size++;
        onLane.add(position);
        EventKind kind = entry.event().kind();
        type[position] = kind.code();
        lane[position] = laneOfEntry;
        ordinal[position] = (int) entry.seq();
        incarnation[position] = entry.incarnation();
        lamport[position] = entry.lamport();
        atMillis[position] = entry.atMillis();
        names[position] = -1;
        peer[position] = -1;
        payloadStart[position] = -1;
        counterpart[position] = -1;
        switch (entry.event()) {
            case Event.Start start -> starts.put(position, start);
            case Event.Receive receive -> {
                names[position] = intern(messageClasses, receive.message().type());
                peer[position] = peer(receive.from());
                messageId[position] = receive.messageId();
                value[position] = receive.fromLamport();
                payloadStart[position] = store(receive.message().bytes());
                Integer senderLane = laneIndex.get(receive.from());
                int send = senderLane == null ? -1 : sends.get(senderLane, receive.messageId());
                counterpart[position] = send;
                if (send >= 0 && counterpart[send] < 0) {
                    counterpart[send] = position;
                }
                arcSends.add(send);
                arcReceives.add(position);
            }
            case Event.Send send -> {
                names[position] = intern(messageClasses, send.messageType());
                peer[position] = peer(send.to());
                messageId[position] = send.messageId();
                value[position] = send.digest();
                sends.put(laneOfEntry, send.messageId(), position);
            }
            case Event.TimerFired timer -> {
                names[position] = intern(tagClasses, timer.tag().type());
                value[position] = timer.timerId();
                payloadStart[position] = store(timer.tag().bytes());
            }
            case Event.ClockRead clock -> value[position] = clock.millis();
            case Event.RandomDraw random -> value[position] = random.value();
            case Event.StorageRead read -> {
                names[position] = intern(storageKeys, read.key());
                payloadStart[position] = read.value() == null ? -1 : store(read.value());
            }
            case Event.Crash crash -> value[position] = crash.crashedIncarnation();
        }
    }

    private int peer(NodeId node) {
        return peerIndex.computeIfAbsent(node, n -> {
            peers.add(n);
            return peers.size() - 1;
        });
    }

    private static int intern(Map<String, Integer> table, String text) {
        return table.computeIfAbsent(text, t -> table.size());
    }

    /** Stores bytes as a 4-byte length followed by the bytes; returns where the length starts. */
    private int store(byte[] bytes) {
        long needed = (long) payloadSize + 4 + bytes.length;
        if (needed > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(traceName + ": the trace's message contents exceed 2 GB, more than the viewer can hold");
        }
        if (needed > payloads.length) {
            payloads = Arrays.copyOf(payloads, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * payloads.length)));
        }
        int start = payloadSize;
        int length = bytes.length;
        payloads[start] = (byte) (length >>> 24);
        payloads[start + 1] = (byte) (length >>> 16);
        payloads[start + 2] = (byte) (length >>> 8);
        payloads[start + 3] = (byte) length;
        System.arraycopy(bytes, 0, payloads, start + 4, length);
        payloadSize = (int) needed;
        return start;
    }

    private void ensureCapacity() {
        if (size < type.length) {
            return;
        }
        int capacity = (int) Math.min(MAX_ENTRIES, 2L * type.length);
        type = Arrays.copyOf(type, capacity);
        lane = Arrays.copyOf(lane, capacity);
        ordinal = Arrays.copyOf(ordinal, capacity);
        incarnation = Arrays.copyOf(incarnation, capacity);
        lamport = Arrays.copyOf(lamport, capacity);
        atMillis = Arrays.copyOf(atMillis, capacity);
        names = Arrays.copyOf(names, capacity);
        peer = Arrays.copyOf(peer, capacity);
        messageId = Arrays.copyOf(messageId, capacity);
        value = Arrays.copyOf(value, capacity);
        payloadStart = Arrays.copyOf(payloadStart, capacity);
        counterpart = Arrays.copyOf(counterpart, capacity);
    }

    /** The finished model; the builder must not be used afterwards. */
    ColumnarTraceModel build() {
        ColumnarTraceModel.Columns columns = new ColumnarTraceModel.Columns();
        columns.name = traceName;
        columns.size = size;
        columns.lanes = lanes;
        columns.peers = List.copyOf(peers);
        columns.type = Arrays.copyOf(type, size);
        columns.lane = Arrays.copyOf(lane, size);
        columns.ordinal = Arrays.copyOf(ordinal, size);
        columns.incarnation = Arrays.copyOf(incarnation, size);
        columns.lamport = Arrays.copyOf(lamport, size);
        columns.atMillis = Arrays.copyOf(atMillis, size);
        columns.peer = Arrays.copyOf(peer, size);
        columns.messageId = Arrays.copyOf(messageId, size);
        columns.value = Arrays.copyOf(value, size);
        columns.payloadStart = Arrays.copyOf(payloadStart, size);
        columns.counterpart = Arrays.copyOf(counterpart, size);
        columns.payloads = Arrays.copyOf(payloads, payloadSize);
        columns.starts = Map.copyOf(starts);
        columns.tagClasses = List.copyOf(tagClasses.keySet());
        columns.storageKeys = List.copyOf(storageKeys.keySet());
        columns.lanePositions = new int[lanes.size()][];
        for (int i = 0; i < lanes.size(); i++) {
            columns.lanePositions[i] = lanePositions[i].toArray();
        }
        // Message types in colour order: by simple name, then full name; the name column is renumbered.
        List<String> byInsertion = List.copyOf(messageClasses.keySet());
        List<String> sorted = new ArrayList<>(byInsertion);
        sorted.sort(Comparator.comparing(ColumnarTraceModel::simpleName).thenComparing(Comparator.naturalOrder()));
        int[] renumber = new int[byInsertion.size()];
        for (int i = 0; i < byInsertion.size(); i++) {
            renumber[i] = sorted.indexOf(byInsertion.get(i));
        }
        columns.messageClasses = List.copyOf(sorted);
        int[] renumbered = Arrays.copyOf(names, size);
        for (int position = 0; position < size; position++) {
            EventKind kind = EventKind.ofCode(columns.type[position]);
            if ((kind == EventKind.SEND || kind == EventKind.RECEIVE) && renumbered[position] >= 0) {
                renumbered[position] = renumber[renumbered[position]];
            }
        }
        columns.names = renumbered;
        buildArcs(columns);
        columns.segments = segments(columns);
        return new ColumnarTraceModel(columns);
    }

    /** Every send never received becomes an arc without a receive; arcs are then sorted by their first end. */
    private void buildArcs(ColumnarTraceModel.Columns columns) {
        for (int position = 0; position < size; position++) {
            if (columns.type[position] == EventKind.SEND.code() && counterpart[position] < 0) {
                arcSends.add(position);
                arcReceives.add(-1);
            }
        }
        int count = arcSends.size();
        // Sorted by first end; ties (one send received twice) keep insertion order, which is receive order.
        long[] keys = new long[count];
        for (int arc = 0; arc < count; arc++) {
            int send = arcSends.get(arc);
            keys[arc] = ((long) (send >= 0 ? send : arcReceives.get(arc)) << 32) | arc;
        }
        Arrays.sort(keys);
        columns.arcSend = new int[count];
        columns.arcReceive = new int[count];
        columns.arcOf = new int[size];
        Arrays.fill(columns.arcOf, -1);
        for (int i = 0; i < count; i++) {
            int arc = (int) keys[i];
            int send = arcSends.get(arc);
            int receive = arcReceives.get(arc);
            columns.arcSend[i] = send;
            columns.arcReceive[i] = receive;
            if (send >= 0 && columns.arcOf[send] < 0) {
                columns.arcOf[send] = i;
            }
            if (receive >= 0) {
                columns.arcOf[receive] = i;
            }
        }
    }

    private List<List<dev.deja.view.Segment>> segments(ColumnarTraceModel.Columns columns) {
        List<List<dev.deja.view.Segment>> all = new ArrayList<>();
        for (int laneNumber = 0; laneNumber < lanes.size(); laneNumber++) {
            int[] positions = columns.lanePositions[laneNumber];
            List<dev.deja.view.Segment> segments = new ArrayList<>();
            int start = 0;
            for (int i = 1; i <= positions.length; i++) {
                if (i == positions.length || columns.incarnation[positions[i]] != columns.incarnation[positions[start]]) {
                    boolean crashed;
                    if (i == positions.length) {
                        crashed = crashedAtEnd.contains(laneNumber);
                    } else {
                        crashed = columns.type[positions[i]] == EventKind.CRASH.code();
                    }
                    segments.add(new dev.deja.view.Segment(laneNumber, columns.incarnation[positions[start]],
                            positions[start], positions[i - 1], crashed));
                    start = i;
                }
            }
            all.add(List.copyOf(segments));
        }
        return List.copyOf(all);
    }
}
