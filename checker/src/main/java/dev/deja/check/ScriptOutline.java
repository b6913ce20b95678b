package dev.deja.check;

import java.util.List;
import java.util.Objects;

/**
 * What loading a script in Python gave, kept with the stored history so that a re-check of the same script text can
 * decide without Python whether every predicate's stored results still hold: when they all do, the re-check reads
 * them from the history and never starts the Python engine (seconds of a new JVM's start-up).
 *
 * <p>Loading a script runs only its top level, which the sandbox keeps from reading anything but the script and the
 * deja module; so the same text under the same deja module declares the same tables, predicates and globals. An
 * outline is stored only for a script whose loading printed nothing (a re-check without Python would not print it).
 *
 * @param digest     a digest of the script's text and of the deja module's (see {@link #digestOf})
 * @param tables     the tables it declares, in declaration order
 * @param predicates its predicates' names, in declaration order
 * @param globals    its global names after loading, in definition order
 */
public record ScriptOutline(String digest, List<TableSchema> tables, List<String> predicates, List<Global> globals) {
    public ScriptOutline {
        Objects.requireNonNull(digest, "digest");
        tables = List.copyOf(tables);
        predicates = List.copyOf(predicates);
        globals = List.copyOf(globals);
    }

    /**
     * One global name of the script: what it is ({@code table}, {@code derived}, {@code predicate}, {@code builtin},
     * {@code mutable} or {@code other}) and, for a table, derived value or predicate, the name it was declared with
     * (null otherwise).
     */
    public record Global(String name, String what, String declared) {
        public Global {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(what, "what");
        }
    }

    /** The digest an outline of {@code scriptText} has under the deja module whose digest is {@code moduleDigest}. */
    public static String digestOf(String scriptText, String moduleDigest) {
        return dev.deja.check.internal.PredicateFingerprints.sha256(moduleDigest + "\n" + scriptText);
    }
}
