package dev.deja.recorder;

import dev.deja.node.NodeId;
import dev.deja.runtime.ClusterSpec;
import dev.deja.runtime.LiveNode;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Runs one node of a cluster in this process until it is told to stop (SIGTERM/SIGINT) or killed:
 * {@code java ... dev.deja.recorder.NodeMain --cluster CLUSTER.json --node ID [--storage DIR] [--workload-start FILE]}
 * (the file where a deployment announces its workload's start, the origin of partition times). Recording is on
 * when {@code -Ddeja.record=TRACE} or the recorder agent is given.
 */
public final class NodeMain {
    /**
     * The exit status of a node whose address another process holds (EX_TEMPFAIL of sysexits.h: a deployment on ports
     * it chose free starts again on others).
     */
    public static final int ADDRESS_IN_USE = 75;
    /** What a node prints, after its id and incarnation, once it listens: the deployment waits for it. */
    public static final String LISTENING = " listening on ";

    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        Path cluster = null;
        NodeId node = null;
        Path storage = null;
        Path workloadStart = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--cluster" -> cluster = Path.of(require(value, "--cluster"));
                case "--node" -> node = new NodeId(require(value, "--node"));
                case "--storage" -> storage = Path.of(require(value, "--storage"));
                case "--workload-start" -> workloadStart = Path.of(require(value, "--workload-start"));
                case "--help", "-h" -> {
                    System.out.println("usage: NodeMain --cluster CLUSTER.json --node ID [--storage DIR] [--workload-start FILE]\n"
                            + "  records to TRACE when run with -D" + Recording.PROPERTY + "=TRACE or "
                            + "-javaagent:deja-recorder.jar=TRACE");
                    return;
                }
                default -> fail("unknown argument " + args[i] + " (see --help)");
            }
            i++;
        }
        if (cluster == null || node == null) {
            fail("--cluster and --node are required (see --help)");
        }
        QuietLogging.apply();
        try {
            run(cluster, node, storage, workloadStart);
        } catch (IllegalArgumentException e) { // a bad cluster file or node class: one line, not a stack trace
            System.err.println("deja node " + node + ": " + e.getMessage());
            System.exit(2); // a usage or input error, as in every deja command
        } catch (java.io.IOException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof java.net.BindException) { // another process holds the address: one line
                    System.err.println("deja node " + node + ": " + e.getMessage());
                    System.exit(ADDRESS_IN_USE);
                }
            }
            throw e;
        }
    }

    /**
     * Runs {@code node} of the cluster file until the process ends (the {@code deja node} command calls this).
     * A bad cluster file or node class throws {@link IllegalArgumentException}.
     */
    public static void run(Path cluster, NodeId node, Path storage, Path workloadStart) throws Exception {
        ClusterSpec spec = ClusterSpec.read(cluster);
        Path storageDirectory = storage != null ? storage : Path.of("storage", node.value());
        Optional<Path> record = Recording.traceDirectory();
        LiveNode live = LiveNode.start(node, spec, new LiveNode.Options(storageDirectory, record, System.out,
                Optional.ofNullable(workloadStart)));
        Runtime.getRuntime().addShutdownHook(new Thread(live::stop, "deja-shutdown"));
        // "Listening" tells the launcher the node is up, and its kills count from then: its start is recorded by now.
        live.awaitStarted();
        System.out.println("node " + node + " incarnation " + live.incarnation() + LISTENING
                + spec.member(node).address() + record.map(r -> ", recording to " + r).orElse(", not recording"));
        live.awaitHandlerEnd(); // the handler thread does the work until a signal, or until its log cannot be written
        if (live.recordingFailure().isPresent()) {
            System.exit(1); // the node said why on its log output
        }
        Thread.currentThread().join(); // stopped by a signal: the shutdown hooks end the process
    }

    private static String require(String value, String option) {
        if (value == null) {
            fail(option + " needs a value");
        }
        return value;
    }

    private static void fail(String message) {
        System.err.println("deja node: " + message);
        System.exit(2);
    }
}
