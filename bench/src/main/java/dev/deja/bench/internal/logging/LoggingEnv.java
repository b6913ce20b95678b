package dev.deja.bench.internal.logging;

import static net.logstash.logback.argument.StructuredArguments.kv;

import dev.deja.node.Env;
import dev.deja.node.ForwardingEnv;
import dev.deja.node.NodeId;
import dev.deja.node.Storage;
import java.util.Base64;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;

/**
 * An {@link Env} that logs, as JSON through SLF4J, every input and send the recorder would record: the send
 * with its destination and message, clock reads, random draws and storage reads. Everything else is passed
 * through.
 */
final class LoggingEnv extends ForwardingEnv {
    private final Logger log;
    private final RandomGenerator random;
    private final Storage storage;

    LoggingEnv(Env env, Logger log) {
        super(env);
        this.log = log;
        RandomGenerator inner = env.random();
        this.random = () -> {
            long value = inner.nextLong();
            log.info("random", kv("node", env.self().value()), kv("value", value));
            return value;
        };
        Storage innerStorage = env.storage();
        this.storage = new Storage() {
            @Override
            public Optional<byte[]> read(String key) {
                Optional<byte[]> value = innerStorage.read(key);
                log.info("storage-read", kv("node", env.self().value()), kv("key", key),
                        kv("value", value.map(bytes -> Base64.getEncoder().encodeToString(bytes)).orElse(null)));
                return value;
            }

            @Override
            public void write(String key, byte[] value) {
                innerStorage.write(key, value);
            }

            @Override
            public void sync() {
                innerStorage.sync();
            }
        };
    }

    @Override
    public void send(NodeId to, Object message) {
        log.info("send", kv("node", self().value()), kv("to", to.value()),
                kv("type", message.getClass().getName()), kv("message", message));
        super.send(to, message);
    }

    @Override
    public long nowMillis() {
        long millis = super.nowMillis();
        log.info("clock", kv("node", self().value()), kv("millis", millis));
        return millis;
    }

    @Override
    public RandomGenerator random() {
        return random;
    }

    @Override
    public Storage storage() {
        return storage;
    }
}
