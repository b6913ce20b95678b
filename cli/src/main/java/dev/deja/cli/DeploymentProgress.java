package dev.deja.cli;

import dev.deja.runtime.Deployment;
import java.io.IOException;
import java.time.Duration;

/**
 * Runs a deployment while showing its progress: the node JVMs coming up, then the seconds of the workload against
 * the duration (a run ends earlier when its workload is done). A ticker thread reads the deployment's figures;
 * the deployment itself runs on the calling thread.
 */
final class DeploymentProgress {
    /** How often the figures are read. */
    private static final Duration TICK = Duration.ofMillis(250);

    private DeploymentProgress() {
    }

    /** {@link Deployment#run()} with progress on standard error. */
    static Deployment.Result run(Deployment deployment, Duration duration, int nodes) throws IOException, InterruptedException {
        try (Progress progress = Progress.start("deploy", duration.toSeconds(), Progress.SECONDS)) {
            Thread ticker = Thread.ofPlatform().daemon().name("deja-deploy-progress").start(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        show(deployment, nodes, progress);
                        Thread.sleep(TICK);
                    }
                } catch (InterruptedException e) {
                    // The deployment ended.
                }
            });
            try {
                return deployment.run();
            } finally {
                ticker.interrupt();
                ticker.join();
                show(deployment, nodes, progress);
            }
        }
    }

    private static void show(Deployment deployment, int nodes, Progress progress) {
        deployment.runningFor().ifPresentOrElse(
                running -> progress.stepTo(running.toSeconds()).note("workload running"),
                () -> progress.note(deployment.nodesListening() + " of " + nodes + " node JVMs listening"));
    }
}
