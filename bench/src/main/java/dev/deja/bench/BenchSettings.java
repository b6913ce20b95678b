package dev.deja.bench;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One benchmark run.
 *
 * @param plan          rounds and sizes
 * @param sections      which sections to run (the others are left out of the results)
 * @param workDirectory where traces, logs and dumps are written; must be new or empty, and is left in place
 * @param home          the Deja installation: predicate scripts under {@code scripts/}, the baseline checkers
 *                      under {@code bench/baseline/}
 * @param examples      the examples the check section checks, by name; empty for every one with a script
 */
public record BenchSettings(BenchPlan plan, Set<Section> sections, Path workDirectory, Path home, Set<String> examples) {
    public BenchSettings {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(workDirectory, "workDirectory");
        Objects.requireNonNull(home, "home");
        sections = sections.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sections));
        examples = Set.copyOf(examples);
    }

    /** Every example with a script in the check section. */
    public BenchSettings(BenchPlan plan, Set<Section> sections, Path workDirectory, Path home) {
        this(plan, sections, workDirectory, home, Set.of());
    }

    /** Every section. */
    public static Set<Section> allSections() {
        return EnumSet.allOf(Section.class);
    }
}
