package dev.deja.cli;

import dev.deja.check.CheckReport;
import dev.deja.check.NodeDeaths;
import dev.deja.check.Violation;
import dev.deja.check.store.CheckDatabaseException;
import dev.deja.check.store.H2StateHistory;
import dev.deja.trace.Trace;
import dev.deja.view.EventFilter;
import dev.deja.view.PictureSettings;
import dev.deja.view.TraceModel;
import dev.deja.view.Viewer;
import dev.deja.view.WitnessHistory;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The witness history of one finding: the few events that led to it. */
@Command(name = "why", mixinStandardHelpOptions = true,
        description = {"Show why a finding of the latest 'deja check' of a trace happened: the events that changed "
                + "what its predicate read about its witness (the rows holding the witness, or the witness row "
                + "itself; the nodes' starts, restarts and deaths if it read 'nodes'), followed back to the events "
                + "that sent the messages carrying those changes, and the finding itself. Every other event is left "
                + "out.",
                "Findings are numbered as 'deja check' prints them (the # column). With --png, the same events are "
                        + "drawn with every other event hidden."},
        footer = {"", "Example:", "  ./deja check traces/2pc scripts/2pc.py", "  ./deja why traces/2pc --finding 3",
                "  ./deja why traces/2pc --finding 3 --png why.png"})
public final class WhyCommand implements Callable<Integer> {
    /** The most events listed unless --all is given; the latest ones before the finding are kept. */
    static final int LISTED = 20;

    @Parameters(paramLabel = "TRACE", description = "The trace directory (checked with 'deja check' before).")
    Path trace;

    @Option(names = "--finding", paramLabel = "N", required = true,
            description = "The finding's number, as in the # column of 'deja check'.")
    int finding;

    @Option(names = "--report", paramLabel = "FILE", description = "Take the finding from this report "
            + "(deja check --json FILE) instead of the latest check's stored findings.")
    Path report;

    @Option(names = "--png", paramLabel = "FILE", description = "Also draw these events, every other event hidden, to FILE.")
    Path png;

    @Option(names = "--all", description = "List every event of the history, not only the last " + LISTED + ".")
    boolean all;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(trace)) {
            err.println("deja why: no trace at " + trace);
            return 2;
        }
        if (!Files.isRegularFile(trace.resolve(H2StateHistory.DIRECTORY).resolve(H2StateHistory.NAME + ".mv.db"))) {
            err.println("deja why: " + trace + " has no stored check: run 'deja check " + trace + " SCRIPT' first");
            return 2;
        }
        try (H2StateHistory history = H2StateHistory.open(trace, H2StateHistory.Mode.READ_ONLY)) {
            List<Violation> findings = report != null ? CheckReport.read(report).violations()
                    : history.lastViolations().orElse(List.of());
            if (finding < 1 || finding > findings.size()) {
                err.println("deja why: --finding " + finding + ": the " + (report != null ? "report " + report
                        : "latest check of " + trace) + " has " + (findings.isEmpty() ? "no findings"
                        : "findings 1.." + findings.size()));
                return 2;
            }
            if (!history.coversWholeTrace()) {
                err.println("deja why: the stored history of " + trace + " does not cover the whole trace (the last "
                        + "check stopped early); run 'deja check' on it without --to or --limit");
                return 2;
            }
            Violation chosen = findings.get(finding - 1);
            Trace opened = Trace.open(trace);
            Map<String, long[]> deaths = NodeDeaths.of(opened);
            TraceModel model = TraceModel.open(opened);
            List<WitnessHistory.Cause> causes = WitnessHistory.of(model, history, chosen, deaths);
            print(chosen, causes);
            if (png != null) {
                draw(model, chosen, causes);
            }
            return 0;
        } catch (CheckDatabaseException | IllegalArgumentException e) {
            err.println("deja why: " + e.getMessage());
            return 2;
        }
    }

    private void print(Violation chosen, List<WitnessHistory.Cause> causes) {
        System.out.printf(Locale.ROOT, "finding %d: %s %s, %s, at position %d (node %s, Lamport %d)%n", finding,
                chosen.predicate(), chosen.statusText(), WitnessHistory.describeWitness(chosen),
                chosen.event().position(), chosen.event().node(), chosen.event().lamport());
        if (!chosen.reads().isEmpty()) {
            System.out.println("the predicate read: " + String.join(", ", chosen.reads()));
        }
        List<WitnessHistory.Cause> listed = causes;
        if (!all && causes.size() > LISTED) {
            listed = causes.subList(causes.size() - LISTED, causes.size());
            System.out.printf(Locale.ROOT, "(%d earlier events left out; --all lists them)%n", causes.size() - LISTED);
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"POSITION", "LAMPORT", "NODE", "EVENT", "WHAT"});
        for (WitnessHistory.Cause cause : listed) {
            var event = cause.event();
            rows.add(new String[] {Long.toString(event.position()), Long.toString(event.lamport()), event.node().value(),
                    event.type() + event.messageType().map(t -> " " + t).orElse(""), cause.reason()});
        }
        int[] widths = new int[5];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                boolean number = i < 2;
                String cell = number ? " ".repeat(widths[i] - row[i].length()) + row[i]
                        : i == row.length - 1 ? row[i] : row[i] + " ".repeat(widths[i] - row[i].length());
                line.append(cell).append(i < row.length - 1 ? "  " : "");
            }
            System.out.println(line.toString().stripTrailing());
        }
        System.out.printf(Locale.ROOT, "%d event(s) lead to this finding%n", causes.size());
    }

    private void draw(TraceModel model, Violation chosen, List<WitnessHistory.Cause> causes) {
        List<Integer> positions = new ArrayList<>();
        for (WitnessHistory.Cause cause : causes) {
            int position = (int) cause.event().position();
            positions.add(position);
            // The send of a message a cause received, so that its arc is drawn (an arc needs both ends shown).
            int send = cause.event().type().equals("receive") ? model.counterpart(position) : -1;
            if (send >= 0) {
                positions.add(send);
            }
        }
        int first = positions.stream().min(Integer::compare).orElse(0);
        int last = Math.min(model.size() - 1, positions.stream().max(Integer::compare).orElse(0) + 1);
        PictureSettings settings = PictureSettings.builder(model.size()).range(Math.max(0, first - 1), last)
                .filter(EventFilter.builder().positions(positions).build())
                .violations(List.of(chosen)).selected((int) chosen.event().position(), PictureSettings.Highlight.MARK)
                .build();
        Viewer.writePng(model, settings, png);
        System.out.printf(Locale.ROOT, "deja why: wrote %s: positions %d..%d, only the %d events above (and the"
                + " sends of the messages they received) shown%n", png, Math.max(0, first - 1), last, causes.size());
    }
}
