package dev.deja.trace.internal;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.LargeRollCycles;

/** How node logs use Chronicle Queue: one queue per incarnation, daily files, opened read-only for reading. */
public final class Queues {
    /** Daily files with room for 2^32 entries a day, so a run never outgrows a cycle's index. */
    public static final RollCycle ROLL_CYCLE = LargeRollCycles.LARGE_DAILY;

    private static final DateTimeFormatter CYCLE_NAMES = DateTimeFormatter.ofPattern(ROLL_CYCLE.format())
            .withZone(ZoneOffset.UTC);

    private Queues() {
    }

    /** Opens (creating it if needed) the queue an incarnation appends to. */
    public static SingleChronicleQueue openForAppend(Path directory) {
        return SingleChronicleQueueBuilder.binary(directory).rollCycle(ROLL_CYCLE).build();
    }

    /**
     * Like {@link #openForAppend(Path)}, but the queue takes its time (which names its cycle files) from
     * {@code clock}: the simulator passes virtual time so that the same run writes the same files.
     */
    public static SingleChronicleQueue openForAppend(Path directory, InstantSource clock) {
        TimeProvider time = clock::millis;
        return SingleChronicleQueueBuilder.binary(directory).rollCycle(ROLL_CYCLE).timeProvider(time).blockSize(1 << 20).build();
    }

    /** Opens an existing queue without ever writing to it: traces are read-only to every command. */
    public static SingleChronicleQueue openReadOnly(Path directory) {
        return SingleChronicleQueueBuilder.binary(directory).rollCycle(ROLL_CYCLE).readOnly(true).build();
    }

    /**
     * Registers Chronicle's class aliases ({@code SCQStore} and the rest) that a queue file's header names. The
     * builder registers them when its class initializes; a header decoded before any queue was opened would
     * otherwise log a warning that it cannot resolve {@code SCQStore}.
     */
    public static void registerHeaderAliases() {
        SingleChronicleQueueBuilder.addAliases();
    }

    /** The data file that holds entries of {@code cycle}. */
    public static Path cycleFile(Path directory, int cycle) {
        String name = CYCLE_NAMES.format(Instant.ofEpochMilli((long) cycle * ROLL_CYCLE.lengthInMillis()));
        return directory.resolve(name + ".cq4");
    }
}
