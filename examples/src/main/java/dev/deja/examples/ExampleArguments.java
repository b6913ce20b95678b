package dev.deja.examples;

/** Reading the node arguments an example understands ({@code --arg KEY=VALUE}). */
public final class ExampleArguments {
    private ExampleArguments() {
    }

    /**
     * Argument {@code name} of {@code example} as a whole number from {@code min} to {@code max}, or
     * {@code defaultValue} if it is absent ({@code text} null).
     *
     * @param meaning what the number counts, for the error, e.g. {@code "consensus instances"}
     * @throws IllegalArgumentException naming the argument, its text and the range, if it is not such a number
     */
    public static int intFromTo(String example, String name, String text, int defaultValue, int min, int max,
                                String meaning) {
        if (text == null) {
            return defaultValue;
        }
        try {
            int value = Integer.parseInt(text.strip());
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(example + " argument " + name + "='" + text + "' must be a number of "
                + meaning + " from " + min + " to " + max);
    }
}
