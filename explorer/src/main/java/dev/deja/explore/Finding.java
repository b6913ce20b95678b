package dev.deja.explore;

import dev.deja.sim.Schedule;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the exploration found about one predicate: how many paths broke it and the shortest of them.
 *
 * @param predicate    the predicate's name
 * @param kind         a safety violation, an eventually predicate still false at a path's end, or an error
 * @param paths        how many paths it was found on
 * @param path         the number of the shortest such path (the first found among equally short ones)
 * @param steps        that path's steps up to and including the step where it was found
 * @param node         the node whose step it was
 * @param event        that step's event, e.g. {@code receive Accepted from n2}
 * @param incarnation  the node's incarnation at that step
 * @param seq          the seq of the entry that began that step's handler in the node's log
 * @param lamport      that entry's Lamport clock
 * @param message      an error's message; otherwise empty
 * @param aux          the predicate's aux values at the step
 * @param schedule     the shortest path's schedule, up to that step
 * @param evidence     the trace and schedule written for it, once {@code Explorer.writeEvidence} ran
 */
public record Finding(String predicate, Kind kind, long paths, long path, long steps, String node, String event,
                      int incarnation, long seq, long lamport, String message, Map<String, Object> aux, Schedule schedule,
                      Optional<Evidence> evidence) {
    /** What was found. */
    public enum Kind {
        /** An {@code @always} predicate turned false: the path ends there. */
        SAFETY,
        /** An {@code @eventually} predicate was false at the end of the path (not yet shown to be a liveness bug). */
        EVENTUALLY_OPEN_AT_END,
        /** The predicate raised or ran past its timeout. */
        ERROR
    }

    public Finding {
        Objects.requireNonNull(predicate, "predicate");
        Objects.requireNonNull(kind, "kind");
        aux = aux == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(aux));
        Objects.requireNonNull(evidence, "evidence");
    }

    /**
     * The files that make a finding reproducible.
     *
     * @param trace     the trace written by running the schedule again
     * @param schedule  the schedule file
     * @param position  the position at which {@code deja check} reports the predicate in the trace (the checker is run
     *                  on the written trace), or -1 if it does not report it there
     * @param stepEntry the position, in the trace's merged order, of the entry that began the step where the explorer
     *                  found it; the checker may report it a few entries later, since the trace's order (by Lamport
     *                  clock) may interleave concurrent events otherwise than the path ran them
     * @param command   the command that writes the same trace again
     */
    public record Evidence(String trace, String schedule, long position, long stepEntry, String command) {
    }

    public Finding withEvidence(Evidence value) {
        return new Finding(predicate, kind, paths, path, steps, node, event, incarnation, seq, lamport, message, aux,
                schedule, Optional.of(value));
    }

    public Finding withPaths(long value) {
        return new Finding(predicate, kind, value, path, steps, node, event, incarnation, seq, lamport, message, aux,
                schedule, evidence);
    }
}
