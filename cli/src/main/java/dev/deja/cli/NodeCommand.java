package dev.deja.cli;

import dev.deja.node.NodeId;
import dev.deja.recorder.NodeMain;
import dev.deja.recorder.QuietLogging;
import dev.deja.recorder.Recording;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs one node of a cluster file in this process, as a deployment's node processes do. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Run one node of a cluster file in this process until SIGTERM or SIGINT.",
                "This is what each process of a deployment runs; use it to run your own nodes by hand.",
                "Example:",
                "  ./deja node --cluster cluster.json --node n1 --classpath target/classes --out traces/mine"})
public final class NodeCommand implements Callable<Integer> {
    @Option(names = "--cluster", required = true, paramLabel = "FILE", description = "The cluster file (JSON).")
    Path cluster;

    @Option(names = "--node", required = true, paramLabel = "ID", description = "Which node of the cluster to run.")
    String node;

    @Option(names = "--storage", paramLabel = "DIR", description = "The node's durable storage (default: storage/ID).")
    Path storage;

    @Option(names = "--out", paramLabel = "TRACE", description = "Record into this trace directory.")
    Path record;

    /** The old spelling of {@code --out}, kept so existing scripts run. */
    @Option(names = "--record", hidden = true, paramLabel = "TRACE")
    void oldRecord(Path trace) {
        record = trace;
    }

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @Override
    public Integer call() throws Exception {
        if (record != null) {
            System.setProperty(Recording.PROPERTY, record.toAbsolutePath().toString());
        }
        // LiveNode loads the node class through this thread's context loader.
        Thread.currentThread().setContextClassLoader(UserClasspath.loader(classpath));
        QuietLogging.apply();
        // Not NodeMain.main: it ends the JVM on a bad cluster file, where a command reports it and exits 2.
        NodeMain.run(cluster, new NodeId(node), storage, null);
        return ExitCodes.OK;
    }
}
