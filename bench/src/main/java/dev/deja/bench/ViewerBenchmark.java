package dev.deja.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The hook through which the viewer is measured: an implementation, registered with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.deja.bench.ViewerBenchmark}), opens a trace
 * headlessly and renders frames while panning across it. Without one on the classpath the viewer section
 * reports that it was not measured.
 */
public interface ViewerBenchmark {
    /** What one measurement saw. */
    record Measurement(Duration open, List<Duration> frames) {
        public Measurement {
            frames = List.copyOf(frames);
        }
    }

    /**
     * Opens {@code trace} (time until the first frame is drawn) and then renders {@code frames} frames, each
     * panned a step further along the trace, timing each.
     */
    Measurement measure(Path trace, int frames) throws Exception;
}
