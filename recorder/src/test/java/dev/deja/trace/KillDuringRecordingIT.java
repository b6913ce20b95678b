package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.node.NodeId;
import dev.deja.runtime.Deployment;
import dev.deja.testing.RecordingChild;
import dev.deja.testing.TraceEvents;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a recording process with {@code kill -9} at seeded random points and checks that every entry it
 * completed is readable, that no partial entry is ever returned, and that the manifest says the recording
 * did not complete. {@code -Ddeja.killSeeds=N} sets how many seeds run (the build passes 10, and 200 with
 * {@code -Psoak}; 200 when run without either); {@code
 * -Ddeja.killSeed=S} runs only seed S.
 */
class KillDuringRecordingIT {
    private static final NodeId NODE = new NodeId("n1");

    @TempDir
    Path temporary;

    @Test
    void kill9_leavesEveryCompletedEntryReadableAndNoPartialOne() throws Exception {
        String single = System.getProperty("deja.killSeed");
        long[] seeds = single != null ? new long[] {Long.parseLong(single)}
                : LongStream.range(1, 1 + Long.getLong("deja.killSeeds", 200)).toArray();
        List<String> failures = new ArrayList<>();
        long[] totals = new long[2]; // entries checked, seeds whose kill landed after the first append
        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<Future<String>> results = new ArrayList<>();
            for (long seed : seeds) {
                results.add(pool.submit(() -> runSeed(seed, totals)));
            }
            for (Future<String> result : results) {
                String failure = result.get();
                if (failure != null) {
                    failures.add(failure);
                }
            }
        }
        System.out.printf("kill -9 at %d seeded points: %d entries verified%n", seeds.length, totals[0]);
        assertThat(failures).as("seeds that failed").isEmpty();
        if (seeds.length >= 20) { // the seeded delays must mostly land after the first append, or the test proves little
            assertThat(totals[1]).as("seeds whose kill came after some appends").isGreaterThanOrEqualTo(seeds.length / 4);
        }
    }

    /** Returns null on success, else a description of the failure with the command that reproduces it. */
    private String runSeed(long seed, long[] totals) {
        Path trace = temporary.resolve("seed-" + seed);
        try {
            long acknowledged = killAtSeededPoint(trace, seed);
            NodeLog log = NodeLog.open(Trace.nodeDirectory(trace, NODE));
            assertThat(log.manifest().completed()).isFalse();
            long count = 0;
            try (NodeLog.Cursor cursor = log.cursor()) {
                while (cursor.hasNext()) {
                    TraceEvent entry = cursor.next();
                    assertThat(entry).isEqualTo(TraceEvents.pseudoRandom(NODE, seed, count));
                    count++;
                }
            }
            assertThat(count - 1).as("last readable seq vs last acknowledged append").isGreaterThanOrEqualTo(acknowledged);
            if (seed % 10 == 0) { // the next incarnation continues the log after the crash
                try (NodeLogWriter writer = NodeLogWriter.open(trace, NODE, "test.Node", "test", 1, 0)) {
                    assertThat(writer.previousIncarnationCrashed()).isTrue();
                    assertThat(writer.incarnation()).isEqualTo(2);
                    assertThat(writer.nextSeq()).isEqualTo(count);
                }
            }
            synchronized (totals) {
                totals[0] += count;
                totals[1] += acknowledged >= 0 ? 1 : 0;
            }
            return null;
        } catch (Throwable e) {
            return "seed " + seed + ": " + e + "\n  reproduce: ./deja test -pl recorder -Dit.test=KillDuringRecordingIT"
                    + " -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Ddeja.killSeed=" + seed;
        }
    }

    /** Starts a recording child, kills it after a seeded delay, returns the last seq it acknowledged (-1: none). */
    private static long killAtSeededPoint(Path trace, long seed) throws IOException, InterruptedException {
        Files.createDirectories(trace);
        List<String> command = Deployment.childJavaCommand(List.of(), System.getProperty("java.class.path"),
                RecordingChild.class.getName(), List.of(trace.toString(), Long.toString(seed)));
        // The child's stderr goes to a file next to the trace, so that a child that fails to start (a full disk, a
        // JVM that cannot be launched) says why.
        Path childErrors = trace.resolveSibling(trace.getFileName() + "-child.err");
        Process child = new ProcessBuilder(command).redirectError(childErrors.toFile()).start();
        AtomicLong acknowledged = new AtomicLong(-1);
        CountDownLatch firstAppend = new CountDownLatch(1);
        BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String first = lines.readLine();
        if (!"ready".equals(first)) {
            child.destroyForcibly();
            child.waitFor();
            List<String> errors = Files.readAllLines(childErrors, StandardCharsets.UTF_8);
            throw new IOException("child did not start (first line " + first + "); its stderr ends with:\n  "
                    + String.join("\n  ", errors.subList(Math.max(0, errors.size() - 10), errors.size())));
        }
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = lines.readLine()) != null; ) {
                    if (line.startsWith("appended ")) {
                        acknowledged.set(Long.parseLong(line.substring(9)));
                        firstAppend.countDown();
                    }
                }
            } catch (IOException ignored) {
                // the pipe closes when the child dies
            }
        });
        // Three seeds in four count the delay from the first acknowledged append, so that most kills land among the
        // appends however slowly a loaded machine starts the child; the others count it from "ready", which includes
        // kills before any append.
        if (seed % 4 != 0) {
            firstAppend.await(60, TimeUnit.SECONDS);
        }
        long delayMicros = new SplittableRandom(seed).nextLong(0, 300_000);
        Thread.sleep(delayMicros / 1000, (int) (delayMicros % 1000) * 1000);
        child.destroyForcibly(); // SIGKILL
        child.waitFor();
        reader.join();
        return acknowledged.get();
    }
}
