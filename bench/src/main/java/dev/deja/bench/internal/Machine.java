package dev.deja.bench.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/** What the benchmarks ran on: the figures mean little without it. */
final class Machine {
    private Machine() {
    }

    static ObjectNode describe() {
        ObjectNode node = Results.object();
        node.put("cores", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            node.put("memory_bytes", os.getTotalMemorySize());
        }
        cpuModel().ifPresent(model -> node.put("cpu", model));
        node.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());
        node.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        node.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        node.put("load_average_at_start", Results.round(loadAverage()));
        return node;
    }

    /** The one-minute load average, or -1 where the system has none. */
    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static Optional<String> cpuModel() {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(cpuinfo)) {
            return Optional.empty();
        }
        try {
            return Files.readAllLines(cpuinfo).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip()).findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
