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
 */
public record BenchSettings(BenchPlan plan, Set<Section> sections, Path workDirectory, Path home) {
    public BenchSettings {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(workDirectory, "workDirectory");
        Objects.requireNonNull(home, "home");
        sections = sections.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(sections));
    }

    /** Every section. */
    public static Set<Section> allSections() {
        return EnumSet.allOf(Section.class);
    }
}
