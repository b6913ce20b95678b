package dev.deja.bench.internal;

import dev.deja.bench.BenchPlan;
import dev.deja.bench.BenchReport;
import dev.deja.bench.BenchSettings;
import dev.deja.bench.Benchmarks;
import dev.deja.bench.Section;
import dev.deja.cli.ContributedCommand;
import dev.deja.cli.Installation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code deja bench}: runs Deja's benchmarks, writes the results as JSON and prints them as a table. Contributed to
 * the {@code deja} command at run time ({@code META-INF/services}), so that nothing in the product depends on the
 * benchmarks.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure Deja: recording overhead on a loopback key-value cluster (off, on, and SLF4J + Logback "
                + "JSON logging instead), trace size, replay speed, checking cost (checked over plain replay, "
                + "re-check from history, and a JSON-dump + CPython baseline) for every example with a script, "
                + "simulation speed, and the viewer.",
                "Every comparison runs its sides interleaved in the same run (A B A B ..., at least 5 rounds) and "
                        + "reports the median with min and max. Writes the results as JSON (with the machine they ran "
                        + "on) and prints a Markdown table; progress goes to standard error.",
                "Takes about a minute with --quick and up to ten without, on two otherwise idle cores."},
        footer = {"", "Examples:",
                "  ./deja bench --quick",
                "  ./deja bench --out /tmp/bench.json --only recording,replay",
                "  ./deja bench --show bench/results/latest.json"})
public final class BenchCommand implements Callable<Integer>, ContributedCommand {
    @Option(names = "--quick", description = "Fewer and shorter rounds (the replayed trace is under a million entries).")
    boolean quick;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Where to write the results (default: bench/results/latest.json of this Deja).")
    Path out;

    @Option(names = "--only", paramLabel = "SECTIONS", split = ",",
            description = "Run only these sections: recording, trace-size, replay, check, simulation, explore, liveness, viewer.")
    List<String> only;

    @Option(names = "--examples", paramLabel = "NAMES", split = ",",
            description = "With the check section: check only these examples (e.g. paxos,store); default: every one with a script.")
    List<String> examples;

    @Option(names = "--work", paramLabel = "DIR",
            description = "Keep the traces, logs and dumps in DIR (new or empty) instead of a temporary directory that is deleted.")
    Path work;

    @Option(names = "--show", paramLabel = "FILE", description = "Print the table of an existing results file and exit.")
    Path show;

    @Override
    public Integer call() throws Exception {
        if (show != null) {
            if (!Files.isRegularFile(show)) {
                throw new IllegalArgumentException("no results file at " + show);
            }
            System.out.print(BenchReport.read(show).table());
            return 0;
        }
        Set<Section> sections = sections();
        Path results = out != null ? out : Installation.file("bench/results/latest.json");
        boolean temporary = work == null;
        Path directory = temporary ? Files.createTempDirectory("deja-bench-") : work;
        Set<String> names = new java.util.TreeSet<>();
        for (String name : examples == null ? List.<String>of() : examples) {
            if (dev.deja.examples.Examples.all().stream().noneMatch(e -> e.name().equals(name.strip()))) {
                throw new IllegalArgumentException("--examples: unknown example '" + name + "'; the examples are "
                        + dev.deja.examples.Examples.all().stream().map(dev.deja.examples.Example::name).toList());
            }
            names.add(name.strip());
        }
        BenchSettings settings = new BenchSettings(quick ? BenchPlan.quick() : BenchPlan.full(), sections, directory,
                Installation.file(""), names);
        BenchReport report;
        try {
            report = Benchmarks.run(settings, System.err);
        } catch (Exception e) {
            System.err.println("deja bench: failed; the traces and logs are kept in " + directory);
            throw e;
        }
        report.write(results);
        if (temporary) {
            deleteTree(directory);
        }
        System.out.print(report.table());
        System.err.println("deja bench: results written to " + results);
        return 0;
    }

    private Set<Section> sections() {
        if (only == null || only.isEmpty()) {
            return BenchSettings.allSections();
        }
        Set<Section> chosen = EnumSet.noneOf(Section.class);
        for (String name : only) {
            Section section = Arrays.stream(Section.values()).filter(s -> s.cliName().equals(name.strip()))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException("--only: unknown section '" + name
                            + "'; the sections are " + Arrays.stream(Section.values()).map(Section::cliName)
                            .collect(Collectors.joining(", "))));
            chosen.add(section);
        }
        return chosen;
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
