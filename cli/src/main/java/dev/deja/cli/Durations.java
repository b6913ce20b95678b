package dev.deja.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses human durations: {@code 500ms}, {@code 20s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT20S}). */
public final class Durations implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern HUMAN = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        Matcher matcher = HUMAN.matcher(value.trim());
        if (matcher.matches()) {
            double amount = Double.parseDouble(matcher.group(1));
            long millis = Math.round(amount * switch (matcher.group(2)) {
                case "ms" -> 1;
                case "s" -> 1_000;
                case "m" -> 60_000;
                default -> 3_600_000;
            });
            return Duration.ofMillis(millis);
        }
        try {
            return Duration.parse(value);
        } catch (RuntimeException e) {
            throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a duration (examples: 500ms, 20s, 2m, PT20S)");
        }
    }
}
