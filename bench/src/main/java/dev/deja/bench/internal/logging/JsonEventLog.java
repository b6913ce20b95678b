package dev.deja.bench.internal.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The way people debug a distributed system today: SLF4J calls with structured arguments, Logback behind them
 * writing one JSON object per event to a file through the logstash encoder, with Logback's defaults
 * (a synchronous {@link FileAppender} that flushes every event). Configured in code so that a node process needs
 * no configuration file.
 */
final class JsonEventLog {
    private JsonEventLog() {
    }

    /**
     * Points the process's Logback at {@code file} (replacing any configuration) and returns the logger for
     * {@code name}.
     *
     * @throws IllegalStateException if SLF4J is not bound to Logback in this process
     */
    static Logger open(Path file, String name) {
        ILoggerFactory factory = LoggerFactory.getILoggerFactory();
        if (!(factory instanceof LoggerContext context)) {
            throw new IllegalStateException("SLF4J is bound to " + factory.getClass().getName()
                    + ", not Logback; the logging benchmark needs logback-classic on the node classpath instead of"
                    + " slf4j-simple");
        }
        context.reset();
        LogstashEncoder encoder = new LogstashEncoder();
        encoder.setContext(context);
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("json");
        appender.setFile(file.toString());
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(appender);
        return context.getLogger(name);
    }
}
