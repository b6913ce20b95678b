package dev.deja.cli;

import dev.deja.check.Violation;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.H2StateHistory;
import dev.deja.node.NodeId;
import dev.deja.trace.NodeLog;
import dev.deja.trace.Trace;
import dev.deja.view.ComparisonSettings;
import dev.deja.view.DisplayUnavailableException;
import dev.deja.view.TraceComparison;
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
                        + "show its happens-before cone, filter.",
                "With --compare B, two runs of one cluster side by side (a violating run and its nearest live run): "
                        + "both graphs aligned on their common prefix (faded), the first difference marked, and every "
                        + "node's state in both runs at the first difference (or --at POS of A), the members that "
                        + "differ highlighted. --text prints the same in words; --png draws it."},
        footer = {"", "Examples:",
                "  ./deja view traces/paxos --report report.json --at 3224",
                "  ./deja view traces/paxos --png paxos.png --from 3170 --to 3250 --report report.json",
                "  ./deja view traces/lock --png stripe.png --report lock.json --threshold enough_time=5",
                "  ./deja view traces/paxos --png begins.png --type Begin --node n1 --node n2",
                "  ./deja view traces/violating --compare traces/live --text",
                "  ./deja view traces/violating --compare traces/live --png compare.png"})
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

    @Option(names = "--compare", paramLabel = "TRACE_B",
            description = "Compare TRACE (run A) with another run of the same cluster (run B): both aligned on their "
                    + "common prefix, the first difference, and every node's state in both at the first difference "
                    + "(or --at POS of A) with the members that differ highlighted.")
    Path compare;

    @Option(names = "--text", description = "With --compare: print the comparison (common prefix, where each node's "
            + "log parts, the state diff) instead of opening a window.")
    boolean text;

    @Option(names = "--full", description = "With --compare --text: list the states of the nodes that are the same "
            + "in both runs too.")
    boolean full;

    @CommandLine.Mixin
    NoDaemonOption noDaemon;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (compare != null) {
            return compare(err);
        }
        if (text || full) {
            throw new IllegalArgumentException((text ? "--text" : "--full") + " goes with --compare TRACE_B");
        }
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

    /** deja view A --compare B: the comparison in words, as a picture, or in a window. */
    private int compare(PrintWriter err) {
        List<String> unsupported = new ArrayList<>();
        if (report != null) {
            unsupported.add("--report");
        }
        if (!thresholds.isEmpty()) {
            unsupported.add("--threshold");
        }
        if (from != null || to != null) {
            unsupported.add("--from/--to");
        }
        if (cone) {
            unsupported.add("--cone");
        }
        if (!nodes.isEmpty() || !types.isEmpty() || search != null || hideTimers) {
            unsupported.add("the filters");
        }
        if (!unsupported.isEmpty()) {
            throw new IllegalArgumentException("--compare does not take " + String.join(", ", unsupported)
                    + " (it shows both runs around the compared step; see --help)");
        }
        if (text && png != null) {
            throw new IllegalArgumentException("--text and --png are two outputs of --compare: give one");
        }
        if (full && !text) {
            throw new IllegalArgumentException("--full goes with --compare TRACE_B --text");
        }
        boolean window = png == null && !text;
        if (window) {
            if (!Viewer.displayAvailable()) {
                throw new IllegalArgumentException("cannot open a window: no display (DISPLAY is not set); "
                        + Viewer.windowRequirement() + "; or write a picture instead with --png FILE, or --text");
            }
            try {
                Viewer.startDisplay();
            } catch (DisplayUnavailableException e) {
                err.println("deja view: " + e.getMessage() + "; or write a picture instead with --png FILE, or --text");
                return ExitCodes.USAGE;
            }
        }
        Trace traceA = openTrace(trace, "TRACE");
        Trace traceB = openTrace(compare, "--compare");
        TraceModel a = load(traceA, "view");
        TraceModel b = load(traceB, "view");
        for (TraceModel model : List.of(a, b)) {
            if (model.size() == 0) {
                throw new IllegalArgumentException(model.name() + ": the trace holds no entries");
            }
        }
        TraceComparison comparison = TraceComparison.of(a, b);
        if (at != null) {
            requirePosition("--at", at, a);
        }
        if (width != null && (width < 200 || width > PictureSettings.MAX_WIDTH_PIXELS)) {
            throw new IllegalArgumentException("--width must be between 200 and " + PictureSettings.MAX_WIDTH_PIXELS
                    + " pixels, was " + width);
        }
        ComparisonSettings settings = new ComparisonSettings(traceA, traceB,
                at == null ? OptionalInt.empty() : OptionalInt.of(at), width == null ? 0 : width,
                UserClasspath.loader(classpath));
        err.printf(Locale.ROOT, "deja view: %s (%d entries) and %s (%d entries): common prefix of %d entries%s%n",
                trace, a.size(), compare, b.size(), comparison.commonSize(),
                comparison.identical() ? ", the runs are identical" : "");
        if (window) {
            Viewer.openComparisonWindow(comparison, settings);
            return 0;
        }
        String words = null;
        try (Progress progress = Progress.start("replay", Viewer.entriesToReplay(comparison, settings), "entries")) {
            if (text) {
                words = Viewer.comparisonText(comparison, settings, full, progress::stepBy);
            } else {
                Viewer.writeComparisonPng(comparison, settings, png, progress::stepBy);
            }
        }
        if (text) {
            System.out.print(words);
        } else {
            System.out.printf(Locale.ROOT, "deja view: wrote %s: %s over %s, common prefix of %d entries faded, "
                    + "state diff after A position %d%n", png, trace, compare, comparison.commonSize(),
                    settings.stepA(comparison));
        }
        return 0;
    }

    private static Trace openTrace(Path directory, String option) {
        if (!Files.isDirectory(directory)) {
            throw new IllegalArgumentException(option + " " + directory + ": the trace directory does not exist");
        }
        return Trace.open(directory);
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
        return load(Trace.open(trace), command);
    }

    /** Reads an opened trace for {@code command}, with progress. */
    static TraceModel load(Trace opened, String command) {
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
