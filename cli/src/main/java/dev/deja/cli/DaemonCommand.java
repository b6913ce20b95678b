package dev.deja.cli;

import dev.deja.daemon.DaemonClient;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Shows or stops the warm engine that runs check, sql, view --png and explore for this user. */
@Command(name = "daemon", mixinStandardHelpOptions = true,
        description = {"Show or stop the warm engine: a JVM with a live Python engine that the launcher starts on the "
                + "first 'deja check', 'deja sql', 'deja view --png' or 'deja explore' and reuses for the next ones, so that they do not "
                + "pay for a new JVM and Python context. It prints and writes exactly what a new JVM would, serves only "
                + "this user (a socket in a private directory; the peer's user is checked), one working directory and "
                + "environment at a time, and stops after 30 minutes without a command (DEJA_DAEMON_IDLE_SECONDS).",
                "--no-daemon on a command, or DEJA_NO_DAEMON=1, runs it in a new JVM instead.",
                "Exit code 0 whether or not a warm engine runs: its absence is no finding and no error."},
        footer = {"", "Examples:", "  ./deja daemon status", "  ./deja daemon stop"})
public final class DaemonCommand implements Callable<Integer> {
    /** What to do. */
    enum Action { status, stop }

    @Parameters(index = "0", paramLabel = "ACTION", description = "status or stop.")
    Action action;

    @Override
    public Integer call() {
        Optional<String> answer = action == Action.status ? DaemonClient.status(Installation.file(""))
                : DaemonClient.stop(Installation.file(""));
        if (answer.isEmpty()) {
            System.out.println("deja daemon: no warm engine runs for this installation");
            return ExitCodes.OK;
        }
        System.out.print(answer.get());
        return ExitCodes.OK;
    }
}
