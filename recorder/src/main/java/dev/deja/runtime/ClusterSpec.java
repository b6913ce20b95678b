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
 *   "faults":  { "seed": 7, "dropProbability": 0.1, "delayMillis": "0..20", "partitions": [ "n1|n2,n3@2s..4s" ],
 *                "kill": [ "n2@1s" ], "restart": [ "n2@3s" ] }
 * }
 * }</pre>
 *
 * Nodes are each other's peers; clients are addressable but are nobody's peer and are not recorded. The
 * {@code "faults"} object is a {@link FaultModel} (every key optional; the older {@code "maxExtraDelayMillis"}
 * still reads).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ClusterSpec(Map<NodeId, Member> nodes, Map<NodeId, Member> clients, FaultModel faults) {
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

    public ClusterSpec {
        nodes = nodes == null ? Map.of() : new LinkedHashMap<>(nodes);
        clients = clients == null ? Map.of() : new LinkedHashMap<>(clients);
        faults = faults == null ? FaultModel.NONE : faults;
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
            spec.faults().requireNodes(java.util.Set.copyOf(spec.allIds()));
            return spec;
        } catch (com.fasterxml.jackson.databind.JsonMappingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException wrong ? wrong : e;
            throw new IllegalArgumentException("cluster file " + file + ": " + (cause == e ? e.getOriginalMessage()
                    : cause.getMessage()), e);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster file " + file + ": " + e.getMessage(), e);
        }
    }

    /** The same cluster with other faults. */
    public ClusterSpec withFaults(FaultModel other) {
        return new ClusterSpec(nodes, clients, other);
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
