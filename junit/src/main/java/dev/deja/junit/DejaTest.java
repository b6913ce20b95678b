package dev.deja.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Simulates a cluster file once per seed, checks a predicate script on each trace and fails the seed's test on a
 * violation with the predicate, the position, the trace's path and the command that reproduces it. The annotated
 * method runs after each clean check and may take a {@link DejaRun} to make more assertions:
 *
 * <pre>{@code
 * @DejaTest(cluster = "cluster.json", script = "predicates.py", seeds = 20, drop = 0.1, duplicate = 0.1)
 * void counterCountsEachOperationOnce(DejaRun run) {
 *     assertThat(run.eventsChecked()).isPositive();
 * }
 * }</pre>
 *
 * Paths are relative to the working directory (a Maven project's base directory under Surefire). Traces go to
 * {@code target/deja/CLASS/METHOD/seed-N}, replaced on each run.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@TestTemplate
@ExtendWith(DejaExtension.class)
public @interface DejaTest {
    /** The cluster file (as {@code deja deploy --cluster} takes it): nodes, workload client, faults. */
    String cluster();

    /** The predicate script (as {@code deja check} takes it). */
    String script();

    /** The first seed. */
    long firstSeed() default 1;

    /** How many seeds, from {@link #firstSeed()} on: one test per seed. */
    int seeds() default 10;

    /** Chance that a message is lost; negative keeps the cluster file's. */
    double drop() default -1;

    /** Chance that a message is delivered twice; negative keeps the cluster file's. */
    double duplicate() default -1;

    /** Network delay {@code MIN..MAX} (e.g. {@code 1ms..50ms}); empty keeps the file's, or the simulator's 1..10 ms. */
    String delay() default "";

    /** Chance, after each step, that a node crashes; negative keeps the cluster file's. */
    double crashRate() default -1;

    /** Stop after this much virtual time (a duration such as {@code 30s}). */
    String virtualTime() default "60s";
}
