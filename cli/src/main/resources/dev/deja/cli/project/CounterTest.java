package demo;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.junit.DejaRun;
import dev.deja.junit.DejaTest;

class CounterTest {
    /** Ten simulated runs with lost and duplicated messages; each is checked with predicates.py. */
    @DejaTest(cluster = "cluster.json", script = "predicates.py", seeds = 10, drop = 0.1, duplicate = 0.2)
    void eachOperationCountsOnce(DejaRun run) {
        assertTrue(run.eventsChecked() > 0, "the checker saw the run's events");
    }
}
