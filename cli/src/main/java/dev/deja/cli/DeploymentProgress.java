package dev.deja.cli;

import dev.deja.runtime.Deployment;
import java.io.IOException;
import java.time.Duration;

/**
 * Runs a deployment while showing its progress: the node JVMs coming up, then the seconds of the workload against
 * the duration (a run ends earlier when its workload is done). The poller's thread reads the deployment's figures;
 * the deployment itself runs on the calling thread.
 */
final class DeploymentProgress {
    private DeploymentProgress() {
    }

    /** {@link Deployment#run()} with progress on standard error. */
    static Deployment.Result run(Deployment deployment, Duration duration, int nodes) throws IOException, InterruptedException {
        try (Progress.Poller poller = Progress.polling("deploy", duration.toSeconds(), Progress.SECONDS,
                progress -> show(deployment, nodes, progress))) {
            return deployment.run();
        }
    }

    private static void show(Deployment deployment, int nodes, Progress progress) {
        deployment.runningFor().ifPresentOrElse(
                running -> progress.stepTo(running.toSeconds()).note("workload running"),
                () -> progress.note(deployment.nodesListening() + " of " + nodes + " node JVMs listening"));
    }
}
