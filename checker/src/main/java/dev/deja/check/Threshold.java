package dev.deja.check;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Screens violations by one auxiliary value, as the paper's lock-server stripe does with {@code enough_time}:
 * a violation whose aux value {@code aux} is a number at least {@code minimum} passes and is drawn dark; one
 * whose value is below it, or not a number, is drawn light. A violation without that aux value is not
 * screened by this threshold. A span is screened by its value at its end when it has one.
 *
 * @param aux     the name of the auxiliary value
 * @param minimum the smallest passing value
 */
public record Threshold(String aux, double minimum) {
    public Threshold {
        Objects.requireNonNull(aux, "aux");
        if (aux.isBlank()) {
            throw new IllegalArgumentException("a threshold needs an aux name, as in enough_time=5");
        }
        if (Double.isNaN(minimum)) {
            throw new IllegalArgumentException("threshold " + aux + " needs a number");
        }
    }

    /** Parses {@code NAME=VALUE}, e.g. {@code enough_time=5}. */
    public static Threshold parse(String text) {
        int equals = text.indexOf('=');
        if (equals <= 0 || equals == text.length() - 1) {
            throw new IllegalArgumentException("threshold '" + text + "' must read NAME=VALUE, e.g. enough_time=5");
        }
        String value = text.substring(equals + 1).strip();
        try {
            return new Threshold(text.substring(0, equals).strip(), Double.parseDouble(value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("threshold '" + text + "': '" + value + "' is not a number");
        }
    }

    /**
     * Whether any of {@code thresholds} screens {@code violation} out: one applies to it and it does not pass
     * (what {@code deja check --threshold} and the viewer's light marks share).
     */
    public static boolean screensOut(List<Threshold> thresholds, Violation violation) {
        for (Threshold threshold : thresholds) {
            if (threshold.appliesTo(violation) && !threshold.passes(violation)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The violations classified by {@code thresholds} ({@link Violation#belowThreshold()}); only findings that
     * would count are classified (a closed span never counts, so it is never below).
     */
    public static List<Violation> classify(List<Threshold> thresholds, List<Violation> violations) {
        return violations.stream().map(v -> {
            Violation unscreened = v.withBelowThreshold(false);
            return v.withBelowThreshold(unscreened.counted() && screensOut(thresholds, v));
        }).toList();
    }

    /** Whether this threshold applies to {@code violation}: it has an aux value of that name. */
    public boolean appliesTo(Violation violation) {
        return screened(violation).containsKey(aux);
    }

    /** Whether {@code violation} passes: its aux value is a number at least the minimum. */
    public boolean passes(Violation violation) {
        return screened(violation).get(aux) instanceof Number number && number.doubleValue() >= minimum;
    }

    /**
     * The aux values a violation is screened by: for a span that has them, those at its last false event
     * ({@link Violation#auxAtEnd()}), since a stability measure such as {@code enough_time} is 0 where a span opens
     * and only tells a real liveness violation from a false alarm at its end; otherwise those where it was found.
     */
    private Map<String, Object> screened(Violation violation) {
        return violation.auxAtEnd().containsKey(aux) ? violation.auxAtEnd() : violation.aux();
    }

    @Override
    public String toString() {
        return aux + "=" + (minimum == Math.rint(minimum) ? Long.toString((long) minimum) : Double.toString(minimum));
    }
}
