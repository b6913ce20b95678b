package dev.deja.cli;

import dev.deja.node.NodeId;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

/**
 * The converters of values that recur across commands, so that each kind of bad value gets one message everywhere
 * (picocli prefixes it with {@code Invalid value for option '--drop':}). Use them as
 * {@code @Option(..., converter = Converters.Probability.class)}. Durations: {@link Durations}.
 */
public final class Converters {
    private static final Pattern RANGE = Pattern.compile("(.+?)\\.\\.(.+)");

    private Converters() {
    }

    /** A probability: a number from 0 to 1. */
    public static final class Probability implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double probability;
            try {
                probability = Double.parseDouble(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a probability (a number from 0 to 1, e.g. 0.3)");
            }
            if (!(probability >= 0 && probability <= 1)) {
                throw new TypeConversionException("'" + value + "' is not a probability (a number from 0 to 1, e.g. 0.3)");
            }
            return probability;
        }
    }

    /** A position in a trace's merged order: a whole number from 0. */
    public static final class Position implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return nonNegative(value, "a position (a whole number from 0, as 'deja check' and 'deja view' show them)");
        }
    }

    /** A count of at least one: nodes, attempts, findings. */
    public static final class PositiveCount implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long count = nonNegative(value, "a count (a whole number from 1)");
            if (count < 1 || count > Integer.MAX_VALUE) {
                throw new TypeConversionException("'" + value + "' is not a count (a whole number from 1)");
            }
            return (int) count;
        }
    }

    /**
     * A node id as the trace names it ({@code n1}); whether the trace has that node is for the command to say,
     * naming the trace and its nodes. Use with a {@code List<NodeId>} option to make {@code --node} repeatable.
     */
    public static final class Node implements CommandLine.ITypeConverter<NodeId> {
        @Override
        public NodeId convert(String value) {
            try {
                return new NodeId(value.strip());
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a node id (1-64 letters, digits, '-', '_' "
                        + "or '.', not starting with '.', e.g. n1)");
            }
        }
    }

    /** A range of durations {@code MIN..MAX}, e.g. {@code 1ms..100ms}; a single duration means MIN = MAX. */
    public static final class DurationRange implements CommandLine.ITypeConverter<Duration[]> {
        @Override
        public Duration[] convert(String value) {
            Matcher matcher = RANGE.matcher(value.strip());
            Duration min;
            Duration max;
            try {
                if (matcher.matches()) {
                    min = Durations.parse(matcher.group(1));
                    max = Durations.parse(matcher.group(2));
                } else {
                    min = Durations.parse(value);
                    max = min;
                }
            } catch (TypeConversionException e) {
                throw new TypeConversionException("'" + value + "' is not a range of durations MIN..MAX (e.g. 1ms..100ms)");
            }
            if (max.compareTo(min) < 0) {
                throw new TypeConversionException("'" + value + "' is not a range of durations: MAX is below MIN");
            }
            return new Duration[] {min, max};
        }
    }

    private static long nonNegative(String value, String what) {
        long number;
        try {
            number = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        if (number < 0) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        return number;
    }
}
