package dev.deja.bench.internal.logging;

import static net.logstash.logback.argument.StructuredArguments.kv;

import dev.deja.bench.internal.kv.KvReplica;
import dev.deja.node.Env;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.node.TimerId;
import java.nio.file.Path;
import org.slf4j.Logger;

/**
 * A {@link KvReplica} that logs every event the recorder would record (start, receive with the message, timer,
 * and through {@link LoggingEnv} sends and observations) as JSON with SLF4J and Logback, to
 * {@code <logDirectory>/<node>.json}; run with recording off, it is the logging side of the recording benchmark.
 */
public final class Slf4jLoggedKvReplica implements Node {
    /** The node argument naming the directory the JSON logs go to. */
    public static final String LOG_DIRECTORY_ARG = "logDirectory";

    private final KvReplica replica = new KvReplica();
    private Logger log;
    private LoggingEnv logging;

    public Slf4jLoggedKvReplica() {
    }

    @Override
    public void onStart(Env env) {
        String directory = env.args().get(LOG_DIRECTORY_ARG);
        if (directory == null) {
            throw new IllegalArgumentException("the logging replica needs the node argument " + LOG_DIRECTORY_ARG);
        }
        log = JsonEventLog.open(Path.of(directory).resolve(env.self().value() + ".json"), "dev.deja.bench.kv");
        logging = new LoggingEnv(env, log);
        log.info("start", kv("node", env.self().value()), kv("incarnation", env.incarnation()),
                kv("class", KvReplica.class.getName()), kv("peers", env.peers().stream().map(NodeId::value).toList()));
        replica.onStart(logging);
    }

    @Override
    public void onMessage(Env env, NodeId from, Object message) {
        log.info("receive", kv("node", env.self().value()), kv("from", from.value()),
                kv("type", message.getClass().getName()), kv("message", message));
        replica.onMessage(logging, from, message);
    }

    @Override
    public void onTimer(Env env, TimerId timer, Object tag) {
        log.info("timer", kv("node", env.self().value()), kv("timer", timer.value()), kv("tag", tag));
        replica.onTimer(logging, timer, tag);
    }
}
