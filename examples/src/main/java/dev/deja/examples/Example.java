package dev.deja.examples;

import dev.deja.node.Node;
import dev.deja.runtime.WorkloadDriver;
import dev.deja.node.NodeId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

    /**
     * The node arguments the example understands besides {@code bug}, as {@code KEY=FORM} to a one-line
     * description, for {@code deja examples}; given with {@code --arg} to {@code deploy} and {@code simulate}.
     */
    default Map<String, String> arguments() {
        return Map.of();
    }

    /**
     * The arguments (as for {@link #arguments()}) that keep the example's workload going until a run's step or time
     * limit, for benchmarks that need runs of a given length. None by default: most workloads never end by
     * themselves.
     */
    default Map<String, String> longRunArguments() {
        return Map.of();
    }

    /**
     * The predicate script that checks this example ({@code deja check TRACE SCRIPT}), relative to the Deja
     * installation, e.g. {@code scripts/paxos.py}; empty if the example ships none. Tests and benchmarks take the
     * script from here rather than from the example's name.
     */
    default Optional<Path> script() {
        return Optional.empty();
    }

    /** How many nodes a deployment uses when the user does not say. */
    int defaultNodes();

    /**
     * The ids of a cluster of {@code count} nodes, in a stable order; by default {@code n1 … nCOUNT}. An example
     * whose nodes have roles (a server and clients, say) names them here.
     */
    default List<NodeId> nodeIds(int count) {
        List<NodeId> ids = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            ids.add(new NodeId("n" + i));
        }
        return List.copyOf(ids);
    }

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
