package dev.deja.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the client answers the launcher before any server exists (no server is started here), and what it compares. */
class DaemonClientTest {
    @TempDir
    Path temporary;

    @Test
    void eligible_theEnginesCommands_notAnExploreWithoutAScript() {
        assertThat(DaemonClient.eligible(new String[] {"check", "t", "s.py"})).isTrue();
        assertThat(DaemonClient.eligible(new String[] {"check", "t", "s.py", "--watch"})).isFalse();
        assertThat(DaemonClient.eligible(new String[] {"view", "t"})).as("a window").isFalse();
        assertThat(DaemonClient.eligible(new String[] {"view", "t", "--png", "p.png"})).isTrue();
        assertThat(DaemonClient.eligible(new String[] {"explore", "paxos", "--script", "s.py"})).isTrue();
        assertThat(DaemonClient.eligible(new String[] {"explore", "paxos", "--script=s.py"})).isTrue();
        assertThat(DaemonClient.eligible(new String[] {"explore", "paxos", "--paths", "100"}))
                .as("no Python: a new JVM with C2").isFalse();
        assertThat(DaemonClient.eligible(new String[] {"simulate", "paxos"})).isFalse();
    }

    @Test
    void environment_comparesWhatChangesACommand_notTheLaunchersOwnVariables() {
        Map<String, String> chosen = DaemonClient.environment(Map.of("LANG", "C.UTF-8",
                "DEJA_FULL_JIT", "1", "DEJA_DAEMON_WAIT", "1", DaemonClient.FLAGS_VARIABLE, "-Xmx1g",
                DaemonClient.CLASSPATH_VARIABLE, "a.jar", "PATH", "/bin"));
        assertThat(chosen).containsOnlyKeys("LANG", "DEJA_FULL_JIT");
    }

    @Test
    void run_noServerAndTheLauncherStartsOneAfter_asksForANewJvmThenAStart_withoutStartingOne() throws Exception {
        Path directory = temporary.resolve("daemon");
        System.setProperty("deja.daemon.dir", directory.toString());
        try {
            assertThat(DaemonClient.run(temporary, new String[] {"check", "trace", "script.py"}, "classes", true))
                    .isEqualTo(DaemonClient.RUN_COLD_THEN_START);
            // Nothing started: no socket, no log of a server.
            assertThat(Files.exists(directory) && Files.list(directory).findAny().isPresent()).isFalse();
            // A command the engine does not run is still simply run cold.
            assertThat(DaemonClient.run(temporary, new String[] {"check", "--no-daemon", "trace", "script.py"}, "classes",
                    true)).isEqualTo(DaemonClient.RUN_COLD);
            assertThat(DaemonClient.run(temporary, new String[] {"view", "trace"}, "classes", true))
                    .isEqualTo(DaemonClient.RUN_COLD);
        } finally {
            System.clearProperty("deja.daemon.dir");
        }
    }
}
