package dev.deja.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.deja.node.NodeId;
import dev.deja.trace.JsonFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A cluster file: every node's address, class and arguments, the clients that may talk to them, and the
 * network faults to inject. Example:
 *
 * <pre>{@code
 * {
 *   "nodes":   { "n1": { "address": "127.0.0.1:7001", "class": "dev.deja.examples.paxos.PaxosNode",
 *                        "args": { "bug": "spec" } }, ... },
 *   "clients": { "client": { "address": "127.0.0.1:7100", "class": "dev.deja.examples.paxos.PaxosClient" } },
 *   "faults":  { "dropProbability": 0.1, "maxExtraDelayMillis": 20 }
 * }
 * }</pre>
 *
 * Nodes are each other's peers; clients are addressable but are nobody's peer and are not recorded.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ClusterSpec(Map<NodeId, Member> nodes, Map<NodeId, Member> clients, Faults faults) {
    /** One process: where it listens, which {@code Node} class it runs and with which arguments. */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record Member(String address, @JsonProperty("class") String nodeClass, Map<String, String> args) {
        public Member {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(nodeClass, "class");
            args = args == null ? Map.of() : Map.copyOf(args);
        }

        /** The address as host and port; fails with a clear message if it is not {@code host:port}. */
        public InetSocketAddress socketAddress() {
            int colon = address.lastIndexOf(':');
            try {
                if (colon <= 0) {
                    throw new NumberFormatException();
                }
                return new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("address '" + address + "' is not host:port");
            }
        }
    }

    /**
     * Network faults injected by the deployment runtime on the sending side.
     *
     * @param dropProbability     chance that a message between two different processes is silently lost
     * @param maxExtraDelayMillis each message is delayed by a uniform random 0..max milliseconds (which can
     *                            reorder messages)
     */
    public record Faults(double dropProbability, long maxExtraDelayMillis) {
        public static final Faults NONE = new Faults(0, 0);

        public Faults {
            if (!(dropProbability >= 0 && dropProbability <= 1)) {
                throw new IllegalArgumentException("drop probability must be in [0, 1], was " + dropProbability);
            }
            if (maxExtraDelayMillis < 0) {
                throw new IllegalArgumentException("extra delay cannot be negative: " + maxExtraDelayMillis);
            }
        }
    }

    public ClusterSpec {
        nodes = nodes == null ? Map.of() : new LinkedHashMap<>(nodes);
        clients = clients == null ? Map.of() : new LinkedHashMap<>(clients);
        faults = faults == null ? Faults.NONE : faults;
        for (NodeId client : clients.keySet()) {
            if (nodes.containsKey(client)) {
                throw new IllegalArgumentException(client + " is listed both as a node and as a client");
            }
        }
    }

    /** Reads a cluster file, naming the file in every error. */
    public static ClusterSpec read(Path file) {
        try {
            ClusterSpec spec = JsonFiles.read(file, ClusterSpec.class);
            if (spec.nodes().isEmpty()) {
                throw new IllegalArgumentException("no nodes");
            }
            spec.nodes().values().forEach(Member::socketAddress);
            spec.clients().values().forEach(Member::socketAddress);
            return spec;
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes this spec as a cluster file. */
    public void write(Path file) throws IOException {
        JsonFiles.writeAtomically(file, this);
    }

    /** The member called {@code id}, node or client. */
    public Member member(NodeId id) {
        Member member = nodes.containsKey(id) ? nodes.get(id) : clients.get(id);
        if (member == null) {
            throw new IllegalArgumentException("no node or client " + id + " in the cluster (it has "
                    + String.join(", ", allIds().stream().map(NodeId::value).toList()) + ")");
        }
        return member;
    }

    /** Every node and client id. */
    public List<NodeId> allIds() {
        List<NodeId> all = new ArrayList<>(nodes.keySet());
        all.addAll(clients.keySet());
        return all;
    }

    /** The peers of {@code id}: every node but itself, sorted. */
    public List<NodeId> peersOf(NodeId id) {
        return nodes.keySet().stream().filter(n -> !n.equals(id)).sorted().toList();
    }
}
