package dev.deja.examples;

import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A protocol shipped with Deja, with switchable bugs, runnable under {@code deploy} (and later
 * {@code simulate}). Without a bug it is the correct protocol.
 */
public interface Example {
    /** The CLI name, e.g. {@code paxos}. */
    String name();

    /** One line for {@code --help}. */
    String description();

    /** The class every cluster node runs. */
    Class<? extends Node> nodeClass();

    /** The bugs this example can switch on, name to one-line description, in a stable order. */
    Map<String, String> bugs();

    /** How many nodes a deployment uses when the user does not say. */
    int defaultNodes();

    /** The client that drives the cluster in a deployment, if any. */
    Optional<Class<? extends WorkloadDriver>> driverClass();

    /** The arguments every node gets; by default {@code bug=NAME} when a bug is switched on. */
    default Map<String, String> nodeArgs(Optional<String> bug) {
        Map<String, String> args = new LinkedHashMap<>();
        bug.ifPresent(name -> {
            if (!bugs().containsKey(name)) {
                throw new IllegalArgumentException("example " + name() + " has no bug '" + name + "'; its bugs: "
                        + String.join(", ", bugs().keySet()));
            }
            args.put("bug", name);
        });
        return args;
    }
}
