package dev.deja.cli;

import dev.deja.recorder.NodeMain;
import dev.deja.recorder.Recording;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs one node of a cluster file in this process, as a deployment's node processes do. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Run one node of a cluster file in this process until SIGTERM or SIGINT.",
                "This is what each process of a deployment runs; use it to run your own nodes by hand.",
                "Example: deja node --cluster cluster.json --node n1 --classpath target/classes --record traces/mine"})
public final class NodeCommand implements Callable<Integer> {
    @Option(names = "--cluster", required = true, paramLabel = "FILE", description = "The cluster file (JSON).")
    Path cluster;

    @Option(names = "--node", required = true, paramLabel = "ID", description = "Which node of the cluster to run.")
    String node;

    @Option(names = "--storage", paramLabel = "DIR", description = "The node's durable storage (default: storage/ID).")
    Path storage;

    @Option(names = "--record", paramLabel = "TRACE", description = "Record into this trace directory.")
    Path record;

    @Option(names = "--classpath", paramLabel = "JARS", description = UserClasspath.DESCRIPTION)
    String classpath;

    @Override
    public Integer call() throws Exception {
        if (record != null) {
            System.setProperty(Recording.PROPERTY, record.toAbsolutePath().toString());
        }
        List<String> args = new ArrayList<>(List.of("--cluster", cluster.toString(), "--node", node));
        if (storage != null) {
            args.addAll(List.of("--storage", storage.toString()));
        }
        // LiveNode loads the node class through this thread's context loader.
        Thread.currentThread().setContextClassLoader(UserClasspath.loader(classpath));
        NodeMain.main(args.toArray(String[]::new));
        return 0;
    }
}
