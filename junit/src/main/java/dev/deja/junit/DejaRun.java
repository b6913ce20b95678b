package dev.deja.junit;

import dev.deja.check.CheckReport;
import dev.deja.sim.SimulationResult;
import java.nio.file.Path;

/**
 * One seed's run of a {@link DejaTest}: the trace it wrote, what the simulator and the checker said, and the
 * command that makes the same trace again.
 *
 * @param seed       the seed
 * @param trace      the trace directory
 * @param simulation the simulator's result
 * @param report     the checker's report (clean when the test method runs)
 * @param command    the {@code deja simulate} command that writes the same trace
 */
public record DejaRun(long seed, Path trace, SimulationResult simulation, CheckReport report, String command) {
    /** How many events the checker evaluated, the number {@code deja check} prints. */
    public long eventsChecked() {
        return report.eventsChecked();
    }
}
