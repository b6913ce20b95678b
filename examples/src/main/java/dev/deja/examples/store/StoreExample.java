package dev.deja.examples.store;

import dev.deja.examples.Example;
import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** A replicated object store after BitVault, with the two bugs the WiDS Checker paper explains. */
public final class StoreExample implements Example {
    @Override
    public String name() {
        return "store";
    }

    @Override
    public Optional<Path> script() {
        return Optional.of(Path.of("scripts", "store.py"));
    }

    @Override
    public String description() {
        return "replicated object store: consistent-hash index owners, 3 replicas, heartbeats, repair, "
                + "remove-extra-replicas, load balancing (BitVault; WiDS Checker, NSDI'07, section 4.3)";
    }

    @Override
    public Class<? extends Node> nodeClass() {
        return StoreNode.class;
    }

    @Override
    public Map<String, String> bugs() {
        return StoreNode.BUGS;
    }

    @Override
    public int defaultNodes() {
        return 8;
    }

    @Override
    public Optional<Class<? extends WorkloadDriver>> driverClass() {
        return Optional.of(StoreClient.class);
    }
}
