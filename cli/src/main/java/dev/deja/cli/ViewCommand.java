package dev.deja.cli;

import dev.deja.check.Violation;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.H2StateHistory;
import dev.deja.node.NodeId;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.view.DisplayUnavailableException;
import dev.deja.view.EventFilter;
import dev.deja.view.PictureSettings;
import dev.deja.check.Threshold;
import dev.deja.view.TraceModel;
import dev.deja.view.Viewer;
import dev.deja.view.WindowSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The message-flow graph of a trace: a window to travel through it, or a PNG picture. */
@Command(name = "view", mixinStandardHelpOptions = true,
        description = {"Show a trace as a space-time graph: one lane per node (incarnations split by crashes), every "
                + "entry at its position in the replay order, arcs for messages (dashed with a cross when never "
                + "received), loops for timers and messages to self, colours by message type; under it the "
                + "violations of a check report, dark or light by --threshold.",
                "With --png the graph is written to a file without a window (no display needed). Otherwise a window "
                        + "opens: pan by dragging or scrolling, zoom with Ctrl+scroll or +/-, click an event to see it "
                        + "and its node's state after it (replayed), step along the node, the trace or the message, "
                        + "show its happens-before cone, filter."},
        footer = {"", "Examples:",
                "  ./deja view traces/paxos --report report.json --at 3231",
                "  ./deja view traces/paxos --png paxos.png --from 3170 --to 3250 --report report.json",
                "  ./deja view traces/lock --png stripe.png --report lock.json --threshold enough_time=5",
                "  ./deja view traces/paxos --png begins.png --type Begin --node n1 --node n2"})
public final class ViewCommand implements Callable<Integer> {
    /** Positions shown around --at in a picture when no range is given. */
    private static final int BEFORE_AT = 100;
    private static final int AFTER_AT = 40;

    @Parameters(paramLabel = "TRACE", description = "The trace directory.")
    Path trace;

    @Option(names = {"--png", "--out"}, paramLabel = "FILE",
            description = "Write the graph to this PNG file instead of opening a window (no display needed).")
    Path png;

    @Option(names = "--from", paramLabel = "POS", converter = Converters.Position.class,
            description = "First position in the picture (default: the start, or --at minus 100).")
    Long from;

    @Option(names = "--to", paramLabel = "POS", converter = Converters.Position.class,
            description = "Last position in the picture (default: the end, or --at plus 40).")
    Long to;

    @Option(names = "--width", paramLabel = "PIXELS", description = "Width of the picture (default: about 10 pixels a position, 640 to 2400).")
    Integer width;

    @Option(names = "--report", paramLabel = "FILE", description = "A check report (deja check --json FILE) whose violations fill the stripe "
            + "(default: the latest 'deja check' of the trace).")
    Path report;

    @Option(names = "--threshold", paramLabel = "NAME=VALUE",
            description = "Draw a violation dark only if its aux value NAME is at least VALUE, else light (repeatable; "
                    + "violations without that aux value are not affected).")
    List<String> thresholds = new ArrayList<>();

    @Option(names = "--at", paramLabel = "POS", description = "Select this position: the window opens there; the picture marks it.")
    Integer at;

    @Option(names = "--cone", description = "In the picture, dim everything outside the happens-before cone of --at.")
    boolean cone;

    @Option(names = "--node", paramLabel = "ID", converter = Converters.Node.class,
            description = "Show only these nodes' lanes (repeatable).")
    List<NodeId> nodes = new ArrayList<>();

    @Option(names = "--type", paramLabel = "NAME", description = "Show only sends and receives of these message types (repeatable).")
    List<String> types = new ArrayList<>();

    @Option(names = "--search", paramLabel = "TEXT", description = "Show only entries whose content contains TEXT (ignoring case).")
    String search;

    @Option(names = "--hide-timers", description = "Leave timer firings out.")
    boolean hideTimers;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @CommandLine.Mixin
    NoDaemonOption noDaemon;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        List<Threshold> parsedThresholds = thresholds.stream().map(Threshold::parse).toList();
        if (png == null && !Viewer.displayAvailable()) {
            throw new IllegalArgumentException("cannot open a window: no display (DISPLAY is not set); "
                    + Viewer.windowRequirement() + "; or write a picture instead with --png FILE");
        }
        if (png == null) {
            try {
                Viewer.startDisplay(); // before reading the trace: a machine without a toolkit is told at once
            } catch (DisplayUnavailableException e) {
                err.println("deja view: " + e.getMessage() + "; or write a picture instead with --png FILE");
                return ExitCodes.USAGE;
            }
        }
        long start = System.nanoTime();
        TraceModel model = load(trace, "view");
        err.printf(Locale.ROOT, "deja view: read %d entries of %d nodes (%d messages) in %.1f s%n", model.size(),
                model.nodes().size(), model.arcCount(), (System.nanoTime() - start) / 1e9);
        if (model.size() == 0) {
            throw new IllegalArgumentException(trace + ": the trace holds no entries");
        }
        EventFilter filter = filter(model);
        List<Violation> violations = report == null ? storedViolations(err) : Viewer.violationsOf(model, report);
        if (at != null) {
            requirePosition("--at", at, model);
        }
        if (png == null) {
            Viewer.openWindow(model, new WindowSettings(trace, violations, parsedThresholds,
                    at == null ? OptionalInt.empty() : OptionalInt.of(at), filter, UserClasspath.loader(classpath)));
            return 0;
        }
        int last = model.size() - 1;
        // Positions are longs everywhere (Converters.Position); a picture's range is within an int-sized trace.
        int first = from != null ? (int) Math.min(from, Integer.MAX_VALUE) : at != null ? Math.max(0, at - BEFORE_AT) : 0;
        int end = to != null ? (int) Math.min(to, last) : at != null ? Math.min(last, Math.max(first, at) + AFTER_AT) : last;
        requirePosition("--from", first, model);
        if (end < first) {
            throw new IllegalArgumentException("--to " + end + " is before --from " + first);
        }
        if (cone && at == null) {
            throw new IllegalArgumentException("--cone needs --at POS: the event whose cone to show");
        }
        PictureSettings.Builder settings = PictureSettings.builder(model.size()).range(first, end).filter(filter)
                .violations(violations).thresholds(parsedThresholds);
        if (width != null) {
            if (width < 200 || width > PictureSettings.MAX_WIDTH_PIXELS) {
                throw new IllegalArgumentException("--width must be between 200 and " + PictureSettings.MAX_WIDTH_PIXELS
                        + " pixels, was " + width);
            }
            settings.widthPixels(width);
        }
        if (at != null) {
            settings.selected(at, cone ? PictureSettings.Highlight.CONE : PictureSettings.Highlight.MARK);
        }
        Viewer.writePng(model, settings.build(), png);
        long inRange = violations.stream().filter(v -> v.event().position() >= first && v.event().position() <= end).count();
        System.out.printf(Locale.ROOT, "deja view: wrote %s: positions %d..%d of %d, %d node(s)%s%n", png, first, end,
                model.size(), filter.nodes().isEmpty() ? model.nodes().size() : filter.nodes().size(),
                violations.isEmpty() ? "" : ", " + inRange + " of " + violations.size() + " violation(s) in range");
        return 0;
    }

    /**
     * Without --report: the latest check's findings as stored with the trace's state history (what that check printed),
     * or none if the trace was never checked.
     */
    private List<Violation> storedViolations(PrintWriter err) {
        if (!Files.isRegularFile(trace.resolve(H2StateHistory.DIRECTORY).resolve(H2StateHistory.NAME + ".mv.db"))) {
            return List.of();
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            List<Violation> stored = history.lastViolations().orElse(List.of());
            if (!stored.isEmpty()) {
                err.println("deja view: showing the " + stored.size() + " finding(s) of the latest 'deja check' of "
                        + trace + " (--report FILE shows another report's)");
            }
            return stored;
        } catch (CheckDatabaseException e) {
            err.println("deja view: the latest check's findings cannot be read (" + e.getMessage() + "); showing none");
            return List.of();
        }
    }

    /** Reads {@code trace} for {@code command}, with progress: the events read of the node logs' total. */
    static TraceModel load(Path trace, String command) {
        Trace opened = Trace.open(trace);
        try (Progress progress = Progress.start(command, opened.nodes().stream().mapToLong(NodeLog::entryCount).sum(),
                "events")) {
            progress.note("reading the trace");
            return TraceModel.open(opened, progress::stepTo);
        }
    }

    private static void requirePosition(String option, int position, TraceModel model) {
        if (position < 0 || position >= model.size()) {
            throw new IllegalArgumentException(option + " " + position + " is outside the trace " + model.name()
                    + " (positions 0.." + (model.size() - 1) + ")");
        }
    }

    private EventFilter filter(TraceModel model) {
        EventFilter.Builder filter = EventFilter.builder();
        for (NodeId id : nodes) {
            if (model.lane(id) < 0) {
                throw new IllegalArgumentException("--node " + id + ": the trace has no node " + id + " (nodes: "
                        + String.join(", ", model.nodes().stream().map(NodeId::value).toList()) + ")");
            }
            filter.node(id);
        }
        for (String type : types) {
            boolean known = model.messageTypes().stream().anyMatch(t -> t.equals(type) || t.endsWith("." + type) || t.endsWith("$" + type));
            if (!known) {
                throw new IllegalArgumentException("--type " + type + ": no message of that type in the trace (types: "
                        + String.join(", ", model.messageTypes().stream()
                        .map(t -> t.substring(Math.max(t.lastIndexOf('.'), t.lastIndexOf('$')) + 1)).toList()) + ")");
            }
            filter.messageType(type);
        }
        if (search != null) {
            filter.text(search);
        }
        if (hideTimers) {
            filter.timers(EventFilter.Timers.HIDE);
        }
        return filter.build();
    }
}
