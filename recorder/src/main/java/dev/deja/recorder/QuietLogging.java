package dev.deja.recorder;

/**
 * Keeps the libraries' start-up chatter out of a node's output: Chronicle Queue logs through SLF4J, which with no
 * logging backend prints a three-line warning, and with {@code slf4j-simple} at its default level an INFO line per
 * queue file mapped. A node process calls {@link #apply()} before anything logs. It changes nothing the program
 * configured itself, and nothing at all when the environment variable {@value #ENABLE} is set.
 */
public final class QuietLogging {
    /** Set (to anything) to see the libraries' own log lines in node output. */
    public static final String ENABLE = "DEJA_NODE_LOGGING";

    private static final String PROVIDER = "slf4j.provider";
    private static final String VERBOSITY = "slf4j.internal.verbosity";
    private static final String SIMPLE_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

    private QuietLogging() {
    }

    /** Quiets SLF4J for this process unless asked not to or already configured. */
    public static void apply() {
        if (System.getenv(ENABLE) != null || System.getProperty(PROVIDER) != null) {
            return;
        }
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        boolean hasBackend = loader != null && loader.getResource("META-INF/services/org.slf4j.spi.SLF4JServiceProvider") != null;
        if (!hasBackend && loader != null
                && loader.getResource("org/slf4j/helpers/NOP_FallbackServiceProvider.class") != null) {
            // No backend: SLF4J's own no-op one, named so that SLF4J neither warns nor says which it loaded.
            System.setProperty(PROVIDER, "org.slf4j.helpers.NOP_FallbackServiceProvider");
            if (System.getProperty(VERBOSITY) == null) {
                System.setProperty(VERBOSITY, "WARN");
            }
        }
        if (System.getProperty(SIMPLE_LEVEL) == null && loader != null
                && loader.getResource("simplelogger.properties") == null) {
            System.setProperty(SIMPLE_LEVEL, "warn");
        }
    }
}
