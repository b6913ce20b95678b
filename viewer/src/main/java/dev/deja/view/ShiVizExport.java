package dev.deja.view;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.deja.trace.EventKind;
import dev.deja.view.internal.EventText;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Writes a trace as a log that ShiViz (the space-time diagram viewer for distributed systems logs) reads:
 * the file's first line is the parsing regular expression, the second the (empty) delimiter between
 * executions, then two lines per event, a description and {@code host {"node": clock, ...}} with the event's
 * vector clock.
 *
 * <p>Vector clocks come from the recorded happens-before relation: each exported event of a node ticks the
 * node's own entry by one (so a node's first event has clock 1 and every next one one more, as ShiViz
 * requires), and a receive first takes the entry-wise maximum with its send's clock. Messages from
 * unrecorded nodes (clients) add nothing. Events are written in the merged order, which lists each node's
 * events in its own order.
 */
public final class ShiVizExport {
    /** Which entries become ShiViz events. */
    public enum Entries {
        /** Starts, receives, sends, timer firings and crashes: what the space-time graph shows. */
        MESSAGES_AND_HANDLERS,
        /** Also the clock reads, random draws and storage reads inside handlers. */
        ALL
    }

    /** The parsing expression written as the file's first line. */
    public static final String REGEX =
            "(?<event>.*) \\[position (?<position>\\d+), lamport (?<lamport>\\d+)\\]\\n(?<host>\\S*) (?<clock>{.*})";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ShiVizExport() {
    }

    /** Writes {@code model} to {@code file}; returns how many events were written. */
    public static long write(TraceModel model, Entries entries, Path file) {
        return write(model, entries, file, done -> { });
    }

    /**
     * Writes {@code model} to {@code file}, telling {@code positionsDone} how many of the model's positions are
     * done (after each, on the calling thread); returns how many events were written.
     */
    public static long write(TraceModel model, Entries entries, Path file, LongConsumer positionsDone) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                return write(model, entries, out, positionsDone);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the ShiViz log " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code model} as a ShiViz log; returns how many events were written. */
    public static long write(TraceModel model, Entries entries, Writer out) throws IOException {
        return write(model, entries, out, done -> { });
    }

    private static long write(TraceModel model, Entries entries, Writer out, LongConsumer positionsDone) throws IOException {
        int lanes = model.nodes().size();
        int[][] clocks = new int[lanes][lanes];
        // The clock at each send until the trace ends (a message may be delivered more than once).
        Map<Integer, int[]> atSend = new HashMap<>();
        out.write(REGEX);
        out.write('\n');
        out.write('\n');
        long written = 0;
        for (int position = 0; position < model.size(); position++) {
            positionsDone.accept(position);
            EventKind type = model.type(position);
            if (entries == Entries.MESSAGES_AND_HANDLERS && !(type.isDispatch() || type == EventKind.SEND || type == EventKind.CRASH)) {
                continue;
            }
            int lane = model.laneOf(position);
            int[] clock = clocks[lane];
            if (type == EventKind.RECEIVE && model.counterpart(position) >= 0) {
                int[] sent = atSend.get(model.counterpart(position));
                for (int i = 0; i < lanes; i++) {
                    clock[i] = Math.max(clock[i], sent[i]);
                }
            }
            clock[lane]++;
            if (type == EventKind.SEND) {
                atSend.put(position, clock.clone());
            }
            out.write(EventText.describe(model, position));
            out.write(" [position " + position + ", lamport " + model.lamport(position) + "]\n");
            out.write(model.nodes().get(lane).value());
            out.write(' ');
            out.write(json(model, clock));
            out.write('\n');
            written++;
        }
        positionsDone.accept(model.size());
        return written;
    }

    /** The vector clock as a JSON object of the nodes it has seen, written by Jackson (node names are escaped). */
    private static String json(TraceModel model, int[] clock) {
        ObjectNode object = JsonNodeFactory.instance.objectNode();
        for (int i = 0; i < clock.length; i++) {
            if (clock[i] > 0) {
                object.put(model.nodes().get(i).value(), clock[i]);
            }
        }
        try {
            return MAPPER.writeValueAsString(object);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a vector clock could not be written as JSON", e);
        }
    }
}
