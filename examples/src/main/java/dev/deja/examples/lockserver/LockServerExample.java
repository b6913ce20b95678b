package dev.deja.examples.lockserver;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.node.NodeId;
import dev.deja.runtime.WorkloadDriver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Boxwood's lock service with the livelock the WiDS Checker paper found (section 4.2). */
public final class LockServerExample implements Example {
    @Override
    public String name() {
        return "lockserver";
    }

    @Override
    public Optional<Path> script() {
        return Optional.of(Path.of("scripts", "lockserver.py"));
    }

    @Override
    public String description() {
        return "a lock server and caching clients with " + LockClient.USERS + " lock users each, "
                + LockClient.LOCKS + " reader-writer locks (WiDS Checker, NSDI'07, section 4.2); run without loss";
    }

    @Override
    public Class<? extends Node> nodeClass() {
        return LockNode.class;
    }

    @Override
    public Map<String, String> bugs() {
        return LockClient.BUGS;
    }

    @Override
    public Map<String, String> arguments() {
        return Map.of("rounds=K", "lock-and-unlock rounds each lock user runs before it is done (default "
                + LockClient.DEFAULT_ROUNDS + "); the run ends when every user is done");
    }

    /** Its users stop after a few rounds (about 3,000 steps with the default nodes): as many rounds as allowed. */
    @Override
    public Map<String, String> longRunArguments() {
        return Map.of("rounds", Integer.toString(LockClient.MAX_ROUNDS));
    }

    /** The paper's setting: one server and 20 clients. */
    @Override
    public int defaultNodes() {
        return 21;
    }

    /** {@code server}, then clients {@code c1 … c(count-1)}. */
    @Override
    public List<NodeId> nodeIds(int count) {
        if (count < 2) {
            throw new IllegalArgumentException("the lock service needs the server and at least one client: --nodes 2 "
                    + "or more, was " + count);
        }
        List<NodeId> ids = new ArrayList<>(count);
        ids.add(LockClient.SERVER);
        for (int i = 1; i < count; i++) {
            ids.add(new NodeId("c" + i));
        }
        return List.copyOf(ids);
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(LockDriver.class);
    }
}
