package dev.deja.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The median, minimum and maximum of repeated measurements of one figure, with the samples in the order they
 * were taken. Machines are noisy, so every figure the benchmarks publish is a summary of several rounds.
 *
 * @param samples the measurements, in the order taken; never empty
 */
public record Summary(double median, double min, double max, List<Double> samples) {
    public Summary {
        samples = List.copyOf(samples);
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("a summary needs at least one sample");
        }
    }

    /**
     * Summarizes {@code samples}; the median of an even number of samples is the mean of the middle two.
     *
     * @throws IllegalArgumentException if there are no samples or one is not a finite number
     */
    public static Summary of(List<Double> samples) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("a summary needs at least one sample");
        }
        List<Double> sorted = new ArrayList<>(samples);
        for (double sample : sorted) {
            if (!Double.isFinite(sample)) {
                throw new IllegalArgumentException("sample " + sample + " is not a finite number: " + samples);
            }
        }
        Collections.sort(sorted);
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return new Summary(median, sorted.getFirst(), sorted.getLast(), samples);
    }

    /** The round-by-round ratios {@code numerators[i] / denominators[i]}, summarized. */
    public static Summary ofRatios(List<Double> numerators, List<Double> denominators) {
        if (numerators.size() != denominators.size()) {
            throw new IllegalArgumentException("ratios need as many numerators as denominators: " + numerators.size()
                    + " and " + denominators.size());
        }
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < numerators.size(); i++) {
            ratios.add(numerators.get(i) / denominators.get(i));
        }
        return of(ratios);
    }

    /** Every sample mapped through {@code f}, summarized again (for a monotonic {@code f} min and max may swap). */
    public Summary map(java.util.function.DoubleUnaryOperator f) {
        return of(samples.stream().map(f::applyAsDouble).toList());
    }
}
