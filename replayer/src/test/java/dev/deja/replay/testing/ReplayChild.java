package dev.deja.replay.testing;

import dev.deja.replay.ReplayResult;
import dev.deja.replay.Replayer;
import dev.deja.trace.Trace;
import java.nio.file.Path;

/** Replays the trace named by its argument in a separate JVM (with whatever heap the test gives it) and prints the result. */
public final class ReplayChild {
    private ReplayChild() {
    }

    public static void main(String[] args) {
        ReplayResult result = Replayer.replay(Trace.open(Path.of(args[0])), Replayer.Options.defaults());
        System.out.println("entries " + result.entries() + " divergences " + result.divergences().size()
                + " maxHeapMiB " + Runtime.getRuntime().maxMemory() / (1024 * 1024));
    }
}
