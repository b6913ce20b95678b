package dev.deja.view.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.view.Cone;
import dev.deja.view.ShiVizExport;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ShiVizExportTest {
    private ColumnarTraceModel model;

    /** Three nodes: a chain of messages, a lost one, a self message, a client's query, a duplicate, a restart. */
    @BeforeEach
    void craft() {
        CraftedTrace crafted = new CraftedTrace("n1", "n2", "n3");
        crafted.start("n1").start("n2").start("n3");
        CraftedTrace.Sent a = crafted.send("n1", "n2", "a");
        crafted.receive(a);
        crafted.send("n2", "n3", "b-lost");
        CraftedTrace.Sent self = crafted.send("n2", "n2", "self");
        crafted.receive(self);
        crafted.timer("n3", 7, "tick");
        crafted.clock("n3", 1234);
        crafted.receiveFromOutside("client", "n1", 1, "query");
        CraftedTrace.Sent dup = crafted.send("n1", "n3", "dup");
        crafted.receive(dup).receive(dup);
        crafted.crashAndRestart("n3");
        CraftedTrace.Sent back = crafted.send("n3", "n2", "back");
        crafted.receive(back);
        model = crafted.model();
    }

    private String export(ShiVizExport.Entries entries) throws Exception {
        StringWriter out = new StringWriter();
        ShiVizExport.write(model, entries, out);
        return out.toString();
    }

    /** A parsed event of the log: its position in the trace, host and vector clock. */
    private record Logged(int position, String host, Map<String, Integer> clock) {
    }

    /** Parses the log with the regular expression on its first line, as ShiViz does. */
    private static List<Logged> parse(String log) throws Exception {
        String[] head = log.split("\n", 3);
        // ShiViz's named groups are JavaScript's; Java reads the same syntax once the bare braces are escaped.
        Pattern pattern = Pattern.compile(head[0].replace("{.*}", "\\{.*\\}"));
        assertThat(head[1]).as("no delimiter between executions").isEmpty();
        Matcher matcher = pattern.matcher(head[2]);
        ObjectMapper json = new ObjectMapper();
        List<Logged> events = new ArrayList<>();
        int end = 0;
        while (matcher.find()) {
            assertThat(matcher.start()).as("every line belongs to an event").isEqualTo(end);
            end = matcher.end() + 1;
            Map<String, Integer> clock = new HashMap<>();
            JsonNode parsed = json.readTree(matcher.group("clock"));
            parsed.properties().forEach(field -> clock.put(field.getKey(), field.getValue().intValue()));
            events.add(new Logged(Integer.parseInt(matcher.group("position")), matcher.group("host"), clock));
        }
        assertThat(end).isEqualTo(head[2].length());
        return events;
    }

    @Test
    void export_ofTheCraftedTrace_matchesTheGoldenLog() throws Exception {
        Golden.assertText("crafted.shiviz.log", export(ShiVizExport.Entries.MESSAGES_AND_HANDLERS));
    }

    @Test
    void export_countsEachHostsEventsFromOneWithoutGaps() throws Exception {
        Map<String, Integer> last = new HashMap<>();
        for (Logged event : parse(export(ShiVizExport.Entries.ALL))) {
            int own = event.clock().get(event.host());
            assertThat(own).as("own clock of %s at %d", event.host(), event.position())
                    .isEqualTo(last.getOrDefault(event.host(), 0) + 1);
            last.put(event.host(), own);
        }
        assertThat(last).containsEntry("n3", 8);
    }

    @Test
    void export_vectorClocksOrderEventsExactlyAsHappensBefore() throws Exception {
        List<Logged> events = parse(export(ShiVizExport.Entries.ALL));
        assertThat(events).hasSize(model.size());
        for (Logged a : events) {
            Cone cone = model.cone(a.position());
            for (Logged b : events) {
                boolean clockBefore = a != b && lessOrEqual(a.clock(), b.clock());
                assertThat(clockBefore).as("%d -> %d", a.position(), b.position()).isEqualTo(cone.inFuture(b.position()));
            }
        }
    }

    private static boolean lessOrEqual(Map<String, Integer> a, Map<String, Integer> b) {
        for (Map.Entry<String, Integer> entry : a.entrySet()) {
            if (entry.getValue() > b.getOrDefault(entry.getKey(), 0)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void export_ofMessagesAndHandlers_leavesOutObservations() throws Exception {
        String log = export(ShiVizExport.Entries.MESSAGES_AND_HANDLERS);
        assertThat(log).doesNotContain("clock 1234 ms");
        assertThat(export(ShiVizExport.Entries.ALL)).contains("clock 1234 ms");
    }
}
