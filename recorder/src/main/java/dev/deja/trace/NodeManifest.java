package dev.deja.trace;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.deja.node.NodeId;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code manifest.json} beside each node's logs: who the node is and how each incarnation's recording
 * ended. Rewritten atomically (write to a temporary file, then rename) when an incarnation starts and when
 * it shuts down cleanly; an incarnation killed with {@code kill -9} keeps {@code completed: false}.
 *
 * @param formatVersion the trace format version of every log of this node
 * @param codeVersion   the node's code: its jar's version (or {@code unknown}) and digests of its class file and jar
 *                      ({@link CodeFingerprint})
 * @param completed     whether the recording of the last incarnation ended with a clean shutdown
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeManifest(int formatVersion, NodeId node, String nodeClass, String codeVersion, long startMillis,
                           Long endMillis, boolean completed, List<Incarnation> incarnations) {
    public NodeManifest {
        incarnations = List.copyOf(incarnations);
    }

    /**
     * One incarnation of the node.
     *
     * @param queue     the directory of its Chronicle Queue, relative to the node directory
     * @param firstSeq  the seq of its first entry
     * @param endMillis when it shut down cleanly, or {@code null} if it did not
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Incarnation(int number, String queue, long firstSeq, long startMillis, Long endMillis,
                              boolean completed) {
    }

    /** The last incarnation. */
    public Incarnation lastIncarnation() {
        return incarnations.getLast();
    }

    NodeManifest withIncarnation(Incarnation incarnation) {
        List<Incarnation> all = new ArrayList<>(incarnations);
        all.add(incarnation);
        return new NodeManifest(formatVersion, node, nodeClass, codeVersion, startMillis, null, false, all);
    }

    NodeManifest completedAt(long millis) {
        List<Incarnation> all = new ArrayList<>(incarnations);
        Incarnation last = all.removeLast();
        all.add(new Incarnation(last.number(), last.queue(), last.firstSeq(), last.startMillis(), millis, true));
        return new NodeManifest(formatVersion, node, nodeClass, codeVersion, startMillis, millis, true, all);
    }
}
